'use strict';
// Lab 13's second gate, read from the probes' timelines: how long /health
// waited beyond what the machine made everyone wait, and when the machine
// was too busy for that figure to be trusted.
//
// Each request's wait is first taken less the time the check's own process
// was held up meanwhile (pausedMs: its own work, a collection, the machine
// giving its core away), when an answer could arrive but not be seen. (In
// CI, before the pauses were taken out, a pause of the check's process put
// 178 ms on one /health request, 35 u, while the app's own event loop never
// waited more than 15 ms.)

const { DECISIVE } = require('../../../scripts/checks/define-check');

/** A request's wait less the time the check's own process was held up meanwhile. */
const ownWait = (t) => Math.max(0, t.ms - (t.pausedMs || 0));

/**
 * /health's longest wait beyond the control route's at the same moment.
 * Each request to /health (an unanswered one counts the time it waited) is
 * compared with its twin, the control route's request sent by the same tick
 * of the probes' timer (or, had that one failed, the longest of the control
 * route's sent within one probe interval): a moment when the machine held
 * up the app's process delays both alike. What remains is the app's main
 * thread.
 */
function healthExcess(healthTiming, controlTiming, probeEveryMs) {
  const twins = new Map(controlTiming.timeline.map((c) => [c.tick, ownWait(c)]));
  let worst = { excess: 0, ms: 0, paused: 0, control: 0, answered: true };
  for (const h of healthTiming.timeline) {
    let control = twins.get(h.tick);
    if (control === undefined) {
      const near = controlTiming.timeline.filter((c) => Math.abs(c.sentAt - h.sentAt) <= probeEveryMs).map(ownWait);
      control = near.length ? Math.max(...near) : 0;
    }
    const excess = Math.max(0, ownWait(h) - control);
    if (excess > worst.excess) worst = { excess, ms: h.ms, paused: h.pausedMs || 0, control, answered: h.answered };
  }
  return worst;
}

/**
 * Why the verdict on /health cannot be trusted, if it cannot (an empty list
 * when it can). `excess` is the gate's figure (healthExcess), `threshold`
 * the gate's threshold, both in ms.
 *
 * The control route runs none of the app's code: it says when the machine,
 * not the app, may have made the verdict.
 * - A pass is sure when no request to /health waited the threshold at all.
 *   When one did, and only its twin's wait brings it under, the pass rests
 *   on the machine having held up both alike.
 * - A fail short of DECISIVE times the threshold is unsure when the machine
 *   held up the control route for half the threshold: a moment that held up
 *   /health but not its twin reads as the app's.
 * A pause of the check's own process counts for neither (ownWait): it
 * delays what the check sees, not what the app does.
 */
function healthNoise(healthTiming, controlTiming, excess, threshold) {
  const longest = (timing) => Math.max(0, ...timing.timeline.map(ownWait));
  const health = longest(healthTiming);
  const control = longest(controlTiming);
  if (excess < threshold && health >= threshold) {
    return [
      `a request to /health waited ${health.toFixed(0)} ms, past the threshold of ${threshold.toFixed(0)} ms, ` +
        "and only the control route's wait at the same moment brings it under: the machine held up both",
    ];
  }
  if (excess >= threshold && excess < DECISIVE * threshold && control > threshold / 2) {
    return [`the machine held up even the control route (longest ${control.toFixed(0)} ms, against a /health threshold of ${threshold.toFixed(0)} ms)`];
  }
  return [];
}

module.exports = { healthExcess, healthNoise, ownWait };
