'use strict';
// Keeps the last few kilobytes a child process printed, so an error message
// can show the learner the tail of the app's own output.

class OutputTail {
  constructor(limit = 8192) {
    this.limit = limit;
    this.buffer = '';
  }

  push(chunk) {
    this.buffer += chunk.toString();
    if (this.buffer.length > this.limit * 2) this.buffer = this.buffer.slice(-this.limit);
  }

  /**
   * The last `lines` lines, without the frames inside Node itself and the
   * closing "Node.js vXX" banner: what is left points at the learner's code.
   * With `allFrames`, every stack frame goes (for tools' output, where the
   * message matters and the frames would push it out of the tail).
   */
  text(lines = 15, { allFrames = false } = {}) {
    const frame = allFrames ? /^[\s│|]*at\s+\S/ : /^\s+at (.*\()?node:internal\//;
    return this.buffer
      .slice(-this.limit)
      .trimEnd()
      .split(/\r?\n|\r/)
      .filter((line) => line.trim() && !frame.test(line) && !/^Node\.js v\d/.test(line))
      .slice(-lines)
      .join('\n')
      .trim();
  }
}

/**
 * Calls `onLine` for each complete line of a stream of chunks (any line
 * ending); `flush()` passes on the last, unterminated one.
 */
function lineSplitter(onLine) {
  let partial = '';
  return {
    push(chunk) {
      const parts = (partial + chunk.toString()).split(/\r?\n|\r/);
      partial = parts.pop();
      for (const line of parts) if (line.trim()) onLine(line);
    },
    flush() {
      if (partial.trim()) onLine(partial);
      partial = '';
    },
  };
}

module.exports = { OutputTail, lineSplitter };
