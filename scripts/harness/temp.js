'use strict';
// Removing the workbook's temporary files and folders. On Windows a file
// that was just closed can stay locked for a moment (an antivirus scanning
// it, the search indexer, a child process still ending), and removal fails
// with EBUSY or EPERM: Node's rmSync retries those by itself when asked
// (maxRetries, with retryDelay growing linearly), and a folder that still
// will not go is left behind with a warning. Cleanup never fails a verdict.

const fs = require('node:fs');

const RETRIES = { maxRetries: 5, retryDelay: 100 }; // at most 0.1 + 0.2 + … + 0.5 = 1.5 s

/**
 * Removes `target` (a file or a folder, recursively) if it exists.
 * @returns {boolean} whether it is gone
 */
function removeTemp(target, { rm = fs.rmSync, warn = (text) => process.stderr.write(`Note: ${text}\n`) } = {}) {
  try {
    rm(target, { recursive: true, force: true, ...RETRIES });
    return true;
  } catch (err) {
    warn(`Could not remove the temporary ${target} (${err.code || err.message}); it is safe to delete it by hand.`);
    return false;
  }
}

module.exports = { removeTemp, RETRIES };
