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
   */
  text(lines = 15) {
    return this.buffer
      .slice(-this.limit)
      .trimEnd()
      .split('\n')
      .filter((line) => !/^\s+at (.*\()?node:internal\//.test(line) && !/^Node\.js v\d/.test(line))
      .slice(-lines)
      .join('\n')
      .trim();
  }
}

module.exports = { OutputTail };
