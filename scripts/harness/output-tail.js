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

  /** The last `lines` lines, trimmed. */
  text(lines = 15) {
    return this.buffer.slice(-this.limit).trimEnd().split('\n').slice(-lines).join('\n');
  }
}

module.exports = { OutputTail };
