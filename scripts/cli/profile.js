'use strict';
const tools = require('../profile/tools');
const { outputDir } = require('../profile/session');
const { relative } = require('../lib/labs');
const { bold } = require('../lib/style');
const { requireLab, appFileFor, loadArgs, APP_OPTIONS } = require('./options');
const { UsageError } = require('./errors');
const { printProgress } = require('./progress-printer');

module.exports = {
  summary: 'profile a lab app under its standard load',
  usage: `npx workbook profile <lab> --tool <${Object.keys(tools).join('|')}> [--solution | --app FILE] [--duration S]`,
  help: [
    'Starts the app under a profiler, applies the lab\'s standard load, stops it',
    'cleanly, and prints what to look at first. Files go to profiles/<lab>/.',
    ...Object.values(tools).map((t) => `  --tool ${t.name.padEnd(14)} ${t.summary}`),
    "  --duration S         seconds of load (default: the lab's standard load, usually 10)",
  ],
  options: { ...APP_OPTIONS, tool: { type: 'string' }, duration: { type: 'string' } },
  async run({ values, positionals }) {
    const lab = requireLab(positionals[0], this.usage);
    if (!values.tool) throw new UsageError('Say which profiler with --tool.', this.usage);
    const alias = tools.ALIASES[values.tool];
    if (alias) console.error(`--tool ${values.tool} is now --tool ${alias} (Clinic.js Doctor; \`npx workbook doctor\` is the workbook's preflight). Running ${alias}.`);
    const tool = tools[alias || values.tool];
    if (!tool) throw new UsageError(`There is no tool "${values.tool}". The tools are: ${Object.keys(tools).join(', ')}.`, this.usage);
    const file = appFileFor(lab, values, this.usage);
    const { duration } = loadArgs(lab, values, this.usage);
    const dir = outputDir(lab, tool.name);
    const result = await tool.run({
      lab,
      file,
      dir,
      duration,
      progress: printProgress(process.stderr),
      print: (text) => text && console.log(`\n${text}`),
    });
    console.log(`\nFiles: ${relative(dir)}/`);
    if (result.open) {
      const open = result.open.startsWith('file:') ? require('node:url').fileURLToPath(result.open) : result.open;
      console.log(`Open first: ${bold(relative(open))}${result.howToOpen ? `\n  (${result.howToOpen})` : ''}`);
    }
    return 0;
  },
};
