'use strict';
// Shows a check's progress as it happens: one line per step, with the time
// since the start, so the terminal is never silent for long.

const { dim } = require('../lib/style');

function printProgress(stream = process.stderr) {
  return ({ text, elapsedMs }) => {
    const stamp = `${(elapsedMs / 1000).toFixed(1).padStart(5)} s`;
    stream.write(`${dim(stamp, stream)}  ${text}\n`);
  };
}

module.exports = { printProgress };
