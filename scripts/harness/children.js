'use strict';
// Every process the workbook starts is registered here, so that it is ended
// whatever happens to us: a normal finish, a failed check, an exception, a
// timeout, Ctrl-C or a kill. (Apps started with the probe also exit by
// themselves when their connection to our census closes, which covers SIGKILL.)

const live = new Set();

function track(child) {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

function killAll(signal = 'SIGKILL') {
  for (const child of live) {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

function liveCount() {
  return live.size;
}

// 'exit' handlers must be synchronous: a kill is.
process.on('exit', () => killAll());

let signalsHandled = false;
/**
 * For command-line front ends: on Ctrl-C or SIGTERM, end every child, let
 * `onInterrupt` say something, then exit with the conventional code.
 * (Jest installs its own handling; the 'exit' hook above covers it.)
 */
function exitOnSignals(onInterrupt) {
  if (signalsHandled) return;
  signalsHandled = true;
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]]) {
    process.on(signal, () => {
      killAll();
      if (onInterrupt) onInterrupt(signal);
      process.exit(code);
    });
  }
}

module.exports = { track, killAll, liveCount, exitOnSignals };
