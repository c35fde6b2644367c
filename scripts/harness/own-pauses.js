'use strict';
// The moments this process's own event loop was held up (its own work, a
// collection, the machine giving its core to another process), recorded as
// intervals, so that a timing taken here can leave out what this process
// added to it: an answer that arrived during a pause is only seen, and
// timed, when the pause ends.

const { performance } = require('node:perf_hooks');

/**
 * Starts a ticker every `everyMs`; a tick later than `everyMs + slackMs`
 * records the interval it was late by as a pause.
 *
 * @param {{everyMs?: number, slackMs?: number, now?: () => number}} [options] `now` for tests
 * @returns {{pauses: () => Array<[number, number]>, stop: () => void}} times in
 *   performance.now() milliseconds; pausedWithin() reads how much of an interval they cover
 */
function watchOwnPauses({ everyMs = 5, slackMs = 3, now = () => performance.now() } = {}) {
  const pauses = [];
  let last = now();
  const timer = setInterval(() => {
    const t = now();
    if (t - last > everyMs + slackMs) pauses.push([last + everyMs, t]);
    last = t;
  }, everyMs);
  timer.unref();
  // Asked at the end of a pause, before the ticker has run again: that pause counts too.
  const withCurrent = () => {
    const t = now();
    return t - last > everyMs + slackMs ? [...pauses, [last + everyMs, t]] : pauses.slice();
  };
  return {
    /** The pauses so far, [start, end] each, a pause still going on included. */
    pauses: () => withCurrent(),
    stop: () => clearInterval(timer),
  };
}

/** The total overlap of [from, to] with the pauses (each [start, end]). */
function pausedWithin(pauses, from, to) {
  let total = 0;
  for (const [start, end] of pauses) total += Math.max(0, Math.min(to, end) - Math.max(from, start));
  return total;
}

module.exports = { watchOwnPauses, pausedWithin };
