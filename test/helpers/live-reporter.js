'use strict';
// Prints each test as it ends, and says which one is running whenever one
// takes more than a couple of seconds, so `npm test` is never silent for long,
// on a terminal or in CI's log. (Jest's default reporter only speaks when a
// whole file is done, and some of ours take 20 s.)

const { styleText } = require('node:util');

const colour = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (format, text) => (colour ? styleText(format, text) : text);

class LiveReporter {
  onTestFileStart(test) {
    process.stdout.write(`\n${paint('bold', `▶ ${require('node:path').relative(process.cwd(), test.path)}`)}\n`);
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
}

module.exports = LiveReporter;
