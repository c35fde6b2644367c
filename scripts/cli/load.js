'use strict';
const { startApp } = require('../harness/app-process');
const { relative } = require('../lib/labs');
const { dim } = require('../lib/style');
const { requireLab, appFileFor, loadArgs, APP_OPTIONS, LOAD_OPTIONS } = require('./options');
const { UsageError } = require('./errors');

module.exports = {
  summary: "put the lab's standard load on an app and show autocannon's table",
  usage: 'npx workbook load <lab> [--solution | --app FILE | --url URL] [--duration S] [--connections N]',
  help: [
    'Starts the app (yours, the solution, or FILE) on a free port, or uses one you',
    'already run at --url (e.g. under node --prof), and loads it the way the lab',
    'describes, then prints autocannon\'s own table.',
    '  --duration S      seconds of load (default: the lab\'s, usually 10)',
    '  --connections N   concurrent connections (default: the lab\'s)',
  ],
  options: { ...APP_OPTIONS, ...LOAD_OPTIONS, url: { type: 'string' } },
  async run({ values, positionals }) {
    const lab = requireLab(positionals[0], this.usage);
    const { standard, duration, connections } = loadArgs(lab, values, this.usage);
    let app = null;
    let url = values.url;
    if (url) {
      if (values.app || values.solution) throw new UsageError('Use --url on its own: it loads an app you already run.', this.usage);
      if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/?$/.test(url)) {
        throw new UsageError('--url must be a local address such as http://127.0.0.1:3000 (load stays on this machine).', this.usage);
      }
      url = url.replace(/\/$/, '');
    } else {
      const file = appFileFor(lab, values, this.usage);
      console.error(dim(`Starting ${relative(file)} …`));
      app = await startApp(file, { lab, progress: (line) => console.error(line) });
      url = app.url;
    }
    try {
      // A load with work in the background (lab 08's imports) says what it did.
      const background = standard.setup ? await standard.setup(url) : null;
      console.error(dim(`Load: ${standard.describe}, ${duration} s`));
      // Loaded here, not at the top: every other command starts 0.15 s sooner.
      const autocannon = require('autocannon');
      const instance = autocannon({ url: url + standard.path, connections, duration });
      autocannon.track(instance, { outputStream: process.stdout, renderProgressBar: Boolean(process.stdout.isTTY) });
      const result = await instance;
      if (app) app.assertAlive('under load');
      if (background && background.report) console.log(`\n${background.report()}`);
      return result.errors > 0 ? 1 : 0;
    } finally {
      if (app) await app.stop();
    }
  },
};
