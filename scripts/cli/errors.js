'use strict';
// Errors a command reports to the learner as one plain sentence (plus the
// usage, or the app's output), never as a stack trace.

class UsageError extends Error {
  constructor(message, usage) {
    super(message);
    this.name = 'UsageError';
    this.usage = usage;
  }
}

module.exports = { UsageError };
