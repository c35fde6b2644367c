'use strict';
const { startApp, AppError } = require('../harness/app-process');
const { relative, checkOf } = require('../lib/labs');
const { bold, dim } = require('../lib/style');
const { requireLab, appFileFor, portArg } = require('./options');
const { UsageError } = require('./errors');
const { whyUnavailable } = require('../server/ports');

/**
 * A curl command line for `url`. In Windows PowerShell, `curl` is an alias
 * of Invoke-WebRequest, which takes other options and prints something
 * else; `curl.exe` names the real curl in every Windows shell.
 */
function curlCommand(url, platform = process.platform) {
  return `${platform === 'win32' ? 'curl.exe' : 'curl'} "${url}"`;
}

module.exports = {
  usage: 'npx workbook run <lab> [--solution | --app FILE] [--port N]',
  help: [
    'Starts your labs/<lab>/app.js (or the solution, or FILE) and prints its URL',
    'and a few requests to try. Ctrl-C stops it.',
    '  --port N     listen on port N (default: $PORT or 3000; 0 = any free port)',
  ],
  options: { app: { type: 'string' }, solution: { type: 'boolean' }, port: { type: 'string' } },
  curlCommand,
  async run({ values, positionals }) {
    const lab = requireLab(positionals[0], this.usage);
    const file = appFileFor(lab, values, this.usage);
    const port = portArg(values.port ?? process.env.PORT ?? '3000', this.usage);
    let app;
    try {
      app = await startApp(file, { env: { PORT: port }, lab, progress: (line) => console.error(line) });
    } catch (err) {
      const code = err instanceof AppError && /listen (EADDRINUSE|EACCES)\b/.exec(err.detail);
      if (code) {
        throw new UsageError(`${whyUnavailable(code[1], Number(port))} Pass --port N for another port, or --port 0 for any free one.`, this.usage);
      }
      throw err;
    }
    app.child.stdout.pipe(process.stdout);
    app.child.stderr.pipe(process.stderr);
    const { examples = [] } = checkOf(lab).standardLoad || {};
    console.log(`${bold(relative(file))} is listening on ${bold(app.url)} (pid ${app.pid})`);
    if (examples.length) {
      console.log('Try:');
      for (const path of examples) console.log(`  ${curlCommand(`${app.url}${path}`)}`);
    }
    console.log(dim('Ctrl-C stops it.'));
    const { code, signal } = await app.exited;
    if (!app.stopping) {
      console.error(`The app stopped (${signal ? `signal ${signal}` : `exit code ${code}`}).`);
      return 1;
    }
    return 0;
  },
};
