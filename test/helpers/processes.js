'use strict';
// Helpers for asserting that no process outlives a test.

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** Resolves true once `pid` has gone, false if it is still there after `ms`. */
async function waitForExit(pid, ms = 5000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !isAlive(pid);
}

module.exports = { isAlive, waitForExit };
