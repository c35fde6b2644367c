'use strict';
// The table of `workbook` commands: the CLI dispatches through it, and the
// docs tests check every command a walkthrough shows against it.
//
// A command's module is required only when that command runs or its help is
// asked for: `workbook help` (and the usage a mistyped command gets) reads
// the summaries here and loads none of them, and each command loads its own
// dependencies alone (markdown-it for hints, the profilers, the site's
// server), which keeps every command's start quick.

/** What each command does, in the words `workbook help` lists. */
const summaries = {
  list: 'the labs, and where you are with each',
  check: 'check your fix: measure the app and give a verdict',
  watch: 'check your app again every time you save it',
  hint: 'the next hint for a lab, one step closer to the fix each time',
  run: 'start a lab app to explore it by hand',
  load: "put the lab's standard load on an app and show autocannon's table",
  profile: 'profile a lab app under its standard load',
  diff: 'what you changed: your app against the shipped starter (or the solution)',
  solution: 'the reference solution and why it works (after a pass, or with --spoil)',
  reset: 'put back the shipped starter (your version is kept as a backup)',
  doctor: 'preflight: is this machine ready for the labs?',
  verify: 'for trainers: every solution passes and every starter fails, here',
  start: 'open the workbook site, with Check my fix',
  dev: 'for workbook authors: scaffold a lab (new), lint every lab (check)',
};

/**
 * name -> the command's module ({ usage, help, options, run }), loaded on
 * first use. No prototype: `workbook constructor` is no command.
 */
const commands = Object.create(null);
for (const name of Object.keys(summaries)) {
  Object.defineProperty(commands, name, { enumerable: true, get: () => require(`./${name}`) });
}

/**
 * How long `workbook verify` takes, every lab's check on both sides: the one
 * figure its help, `workbook doctor` and `npm test`'s summary quote
 * (measured: 205 s on a 2-vCPU AMD EPYC VM with Node 24, about 120 s from
 * the per-check times on a 2-vCPU Intel Xeon VM, sixteen labs, 2026-11-28).
 */
const VERIFY_TAKES = '2–4 min';

module.exports = { commands, summaries, VERIFY_TAKES };
