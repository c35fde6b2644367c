'use strict';
// `npm start`: the workbook site on http://127.0.0.1, with its live
// "Check my fix" panel. The site comes built with the workbook (site/build),
// so it starts in a second, offline. An author whose site sources changed
// gets a rebuild first if the site's packages are installed
// (`npm run site:build` installs them), and otherwise a note.

const { spawn } = require('node:child_process');
const { siteToServe } = require('../lib/site');
const { createWorkbookServer } = require('../server/workbook-server');
const { listenOrAnyPort } = require('../server/ports');
const { labs } = require('../lib/labs');
const { nextLab } = require('../lib/progress');
const { bold, dim, red } = require('../lib/style');
const { printProgress } = require('./progress-printer');
const { portArg } = require('./options');
const list = require('./list');

const DEFAULT_PORT = 4321;

/** Opens `url` in the default browser, best effort, on a learner's desktop only. */
function openBrowser(url) {
  if (!process.stdout.isTTY || process.env.CI) return;
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  const child = spawn(command, args, { stdio: 'ignore', detached: true });
  child.on('error', () => {}); // no browser to open: the printed URL is enough
  child.unref();
}

module.exports = {
  usage: 'npm start [-- --port N] [--no-open]',
  help: [
    'Serves the workbook site on http://127.0.0.1 with its "Check my fix" panel.',
    'The site comes built with the workbook: it starts in a second and works offline.',
    `  --port N     listen on port N (default ${DEFAULT_PORT}, or any free port if it is taken or reserved)`,
    '  --no-open    do not open a browser tab',
  ],
  options: { port: { type: 'string' }, 'no-open': { type: 'boolean' } },
  async run({ values }) {
    const port = portArg(values.port ?? process.env.WORKBOOK_PORT ?? String(DEFAULT_PORT), this.usage);
    console.log(bold('Node.js profiling workbook'));
    let site;
    try {
      site = await siteToServe({ progress: printProgress(process.stderr) });
    } catch (err) {
      console.error(red(`The site could not be prepared: ${err.message.split('\n')[0]}`, process.stderr));
      if (err.message.includes('\n')) console.error(dim(err.message.split('\n').slice(1).join('\n'), process.stderr));
      console.error('\nThe labs work without it. Read the walkthroughs in labs/NN-slug/README.md, and check your work with npx workbook check <lab>.\n');
      await list.run({ values: {}, positionals: [] });
      return 1;
    }
    if (site.notice) console.error(dim(site.notice, process.stderr));
    const workbook = createWorkbookServer({ siteDir: site.roots });
    // The port is taken or refused (EACCES: reserved by Windows): any free one will do.
    const url = await listenOrAnyPort((p) => workbook.listen(p), Number(port), (why) =>
      console.log(dim(`${why} Using a free port instead; pass --port N to choose one.`)),
    );
    const next = nextLab() || labs[0];
    console.log(`\nThe workbook is at ${bold(url)}`);
    console.log(`Start with Lab ${next.id}: ${url}/labs/${next.slug}`);
    console.log(dim('Only this computer can reach it (127.0.0.1). Ctrl-C stops it.'));
    if (!values['no-open']) openBrowser(`${url}/labs/${next.slug}`);
    // Serve until Ctrl-C (the CLI's signal handling ends any check in progress).
    await new Promise((resolve) => workbook.server.on('close', resolve));
    return 0;
  },
};
