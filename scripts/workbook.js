#!/usr/bin/env node
'use strict';
// The workbook's command line: `npx workbook <command> …`.

const { parseArgs } = require('node:util');
const { UsageError } = require('./cli/errors');
const { exitOnSignals, killAll } = require('./harness/children');
const { bold, dim, red } = require('./lib/style');

const { commands: COMMANDS, summaries } = require('./cli/commands');

function overview() {
  const width = Math.max(...Object.keys(summaries).map((n) => n.length));
  return [
    `${bold('npx workbook')} <command> [options]`,
    '',
    ...Object.entries(summaries).map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`),
    '',
    `${dim('npx workbook help <command>')} for a command's options.`,
  ].join('\n');
}

function commandHelp(command) {
  return [`${bold('Usage:')} ${command.usage}`, '', ...command.help].join('\n');
}

async function main(argv) {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    const topic = rest[0] && COMMANDS[rest[0]];
    console.log(topic ? commandHelp(topic) : overview());
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`There is no command "${name}".`, overview());
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { ...command.options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true });
  } catch (err) {
    throw new UsageError(err.message.replace(/\. To specify.*$/s, '.'), command.usage);
  }
  if (parsed.values.help) {
    console.log(commandHelp(command));
    return 0;
  }
  return command.run(parsed);
}

exitOnSignals(() => process.stderr.write('\nStopped. Every process the workbook started has been ended.\n'));

main(process.argv.slice(2))
  .then((code) => code ?? 0)
  .catch((err) => {
    killAll();
    // Required here, not at the top: `workbook help` never starts an app.
    const { AppError } = require('./harness/app-process');
    if (err instanceof UsageError) {
      console.error(red(err.message, process.stderr));
      if (err.usage) console.error(`\n${err.usage}`);
      return 2;
    } else if (err instanceof AppError) {
      console.error(red(err.message, process.stderr));
      if (err.detail) console.error(dim(err.detail.split('\n').map((l) => `  │ ${l}`).join('\n'), process.stderr));
      return 1;
    } else {
      console.error(red(`The workbook hit an unexpected problem: ${err.message}`, process.stderr));
      console.error(dim(process.env.WORKBOOK_DEBUG ? err.stack : 'Set WORKBOOK_DEBUG=1 to see where.', process.stderr));
      return 3;
    }
  })
  // Exit once our output is flushed, even if a stray timer or socket would
  // keep the process alive: a finished command never lingers.
  .then((code) => process.stdout.write('', () => process.stderr.write('', () => process.exit(code))));
