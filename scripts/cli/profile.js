'use strict';
const tools = require('../profile/tools');
const { outputDir } = require('../profile/session');
const { relative } = require('../lib/labs');
const { bold } = require('../lib/style');
const { requireLab, appFileFor, loadArgs, APP_OPTIONS } = require('./options');
const { UsageError } = require('./errors');
const { printProgress } = require('./progress-printer');

/**
 * --max-old-space-size MB: a heap limit for the app, which only the gc tool
 * takes (a small old generation makes V8 collect it fully more often, so a
 * short run shows whether what survives keeps rising).
 */
function oldSpaceArg(raw, toolName, usage) {
  if (raw === undefined) return null;
  if (toolName !== 'gc') throw new UsageError('--max-old-space-size goes with --tool gc (it makes full collections more frequent, which is what gc reads).', usage);
  const mb = Number(raw);
  if (!(Number.isInteger(mb) && mb >= 8 && mb <= 65536)) throw new UsageError(`--max-old-space-size must be a whole number of MB from 8 to 65536, not "${raw}".`, usage);
  return mb;
}

module.exports = {
  usage: `npx workbook profile <lab> --tool <${Object.keys(tools).join('|')}> [--solution | --app FILE] [--duration S] [--max-old-space-size MB]`,
  help: [
    'Starts the app under a profiler, applies the lab\'s standard load, stops it',
    'cleanly, and prints what to look at first. Files go to profiles/<lab>/.',
    ...Object.values(tools).map((t) => `  --tool ${t.name.padEnd(14)} ${t.summary}`),
    "  --duration S         seconds of load (default: the lab's standard load, usually 10)",
    '  --max-old-space-size MB   with --tool gc: start the app with that small an old',
    '                       generation, so V8 runs full collections more often (Node\'s own flag)',
  ],
  options: { ...APP_OPTIONS, tool: { type: 'string' }, duration: { type: 'string' }, 'max-old-space-size': { type: 'string' } },
  async run({ values, positionals }) {
    const lab = requireLab(positionals[0], this.usage);
    if (!values.tool) throw new UsageError('Say which profiler with --tool.', this.usage);
    const alias = tools.ALIASES[values.tool];
    if (alias) console.error(`--tool ${values.tool} is now --tool ${alias} (Clinic.js Doctor; \`npx workbook doctor\` is the workbook's preflight). Running ${alias}.`);
    const tool = tools[alias || values.tool];
    if (!tool) throw new UsageError(`There is no tool "${values.tool}". The tools are: ${Object.keys(tools).join(', ')}.`, this.usage);
    const file = appFileFor(lab, values, this.usage);
    const { duration } = loadArgs(lab, values, this.usage);
    const heapMb = oldSpaceArg(values['max-old-space-size'], tool.name, this.usage);
    const dir = outputDir(lab, tool.name);
    const result = await tool.run({
      lab,
      file,
      dir,
      duration,
      heapMb,
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
