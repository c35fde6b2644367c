'use strict';
// Shows long work as it happens: one line per step, with the time since the
// start, so the terminal is never silent for long.

const { dim } = require('../lib/style');

/**
 * @returns a function taking either a check's progress event
 *   `{text, elapsedMs}` or a plain string (timed from this call).
 */
function printProgress(stream = process.stderr) {
  const started = Date.now();
  return (event) => {
    const { text, elapsedMs } = typeof event === 'string' ? { text: event, elapsedMs: Date.now() - started } : event;
    const stamp = `${(elapsedMs / 1000).toFixed(1).padStart(5)} s`;
    stream.write(`${dim(stamp, stream)}  ${text}\n`);
  };
}

module.exports = { printProgress };
