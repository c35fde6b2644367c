'use strict';
const { runCheck } = require('../checks/run-check');
const { formatResult } = require('../checks/format');
const { recordCheck } = require('../lib/progress');
const { requireLab, appFileFor } = require('./options');
const { printProgress } = require('./progress-printer');

const EXIT = { pass: 0, fail: 1, noisy: 2, error: 2 };

module.exports = {
  usage: 'npx workbook check <lab> [--app FILE] [--json]',
  help: [
    'Measures labs/<lab>/app.js (or FILE) the way the lab\'s test does, prints every',
    'figure against its threshold, and a verdict. Exit code 0 = pass, 1 = fail,',
    '2 = too noisy to judge (rerun) or a usage error.',
    '  --app FILE   check another file instead of your labs/<lab>/app.js',
    '  --json       print one JSON object with every figure and the verdict',
  ],
  options: { app: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values, positionals }) {
    const lab = requireLab(positionals[0], this.usage);
    const app = appFileFor(lab, values, this.usage);
    const result = await runCheck(lab, { app, onProgress: printProgress(process.stderr) });
    recordCheck(lab, result, { app });
    if (values.json) {
      process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    } else {
      process.stdout.write(formatResult(result));
    }
    return EXIT[result.verdict];
  },
};
