'use strict';
// Prints each test as it ends, and says which one is running whenever one
// takes more than a couple of seconds, so `npm test` is never silent for long,
// on a terminal or in CI's log. (Jest's default reporter only speaks when a
// whole file is done, and some of ours take 20 s.) At the end: how long each
// file took, then the summary a learner reads first: each lab, not started,
// your fix passes, or your fix fails and why (test/helpers/lab-suite.js
// records those lines).

const path = require('node:path');
const { styleText } = require('node:util');
const { readSelfChecks } = require('./self-check-record');
const { VERIFY_TAKES } = require('../../scripts/cli/commands');

const colour = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (format, text) => (colour ? styleText(format, text) : text);

const STATE_COLOUR = { 'not started': 'dim', 'your fix passes': 'green', 'your fix fails': 'red', 'too noisy, rerun': 'yellow', 'could not check': 'yellow' };

class LiveReporter {
  constructor() {
    this.files = [];
  }

  onRunStart() {
    this.startedAt = Date.now();
  }

  onTestFileStart(test) {
    process.stdout.write(`\n${paint('bold', `▶ ${path.relative(process.cwd(), test.path)}`)}\n`);
  }

  onTestFileResult(test, result) {
    const ms = result.perfStats ? result.perfStats.end - result.perfStats.start : 0;
    this.files.push({ file: path.relative(process.cwd(), test.path), ms, tests: result.testResults.length });
  }

  onTestCaseStart(test, info) {
    const started = Date.now();
    const say = () => process.stdout.write(paint('dim', `  … running for ${Math.round((Date.now() - started) / 1000)} s: ${info.fullName}\n`));
    this.slow = setTimeout(() => {
      say();
      this.slow = setInterval(say, 8000);
    }, 2000);
  }

  onTestCaseResult(test, result) {
    clearTimeout(this.slow);
    clearInterval(this.slow);
    const mark = { passed: paint('green', '✓'), failed: paint('red', '✗'), skipped: paint('yellow', '−') }[result.status] || '·';
    process.stdout.write(`  ${mark} ${result.fullName} ${paint('dim', `(${((result.duration || 0) / 1000).toFixed(1)} s)`)}\n`);
  }

  onRunComplete() {
    if (this.files.length > 1) {
      process.stdout.write(`\n${paint('bold', 'Time per test file')}\n`);
      for (const f of [...this.files].sort((a, b) => b.ms - a.ms)) {
        process.stdout.write(`  ${`${(f.ms / 1000).toFixed(1)} s`.padStart(8)}  ${f.file} ${paint('dim', `(${f.tests} tests)`)}\n`);
      }
    }
    const labs = readSelfChecks(this.startedAt || 0);
    if (!labs.length) return;
    process.stdout.write(`\n${paint('bold', 'Your labs')}\n`);
    // One column for the states, after the longest title.
    const width = Math.max(...labs.map((lab) => lab.title.length));
    for (const lab of labs) {
      process.stdout.write(`  ${lab.id}  ${lab.title.padEnd(width)}  ${paint(STATE_COLOUR[lab.state] || 'reset', lab.state)}${lab.why ? paint('dim', `: ${lab.why}`) : ''}\n`);
    }
    const unproven = labs.filter((lab) => lab.checkProven === false);
    if (unproven.length) {
      process.stdout.write(
        paint(
          'dim',
          `\nThe checks of the ${unproven.length === labs.length ? `${labs.length} labs` : `${unproven.length} labs you have not started`} were not measured here: each is proven on this machine (its reference passes, its shipped starter fails) once you start it.\n` +
            `To prove them all now: npx workbook verify (${VERIFY_TAKES}, 5–25 s a lab), or one: npm test -- <lab>.\n`,
        ),
      );
    }
  }
}

module.exports = LiveReporter;
