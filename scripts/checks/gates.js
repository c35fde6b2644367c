'use strict';
// The vocabulary of a check's result: gates (a measured figure against a
// threshold), response cases, and the verdict that follows from them.

/**
 * A measured figure against its threshold.
 * @param {object} g
 * @param {string} g.id stable identifier (used in JSON, charts, the bench)
 * @param {string} g.label what was measured, in plain words
 * @param {number} g.value the measured figure
 * @param {'<'|'>='} g.op how it must compare to the threshold to pass
 * @param {number} g.threshold
 * @param {string} g.unit e.g. 'ms', 'B/request', '×'
 * @param {string} [g.scale] how the threshold was derived, e.g. '0.5 × t (t = 38 ms)'
 * @param {string} g.pass_meaning what a pass says about the app
 * @param {string} g.fail_meaning what a fail says, and where to look
 */
function gate(g) {
  const pass = g.op === '<' ? g.value < g.threshold : g.value >= g.threshold;
  // How far from the threshold, as a factor >= 1 on the side it landed on:
  // 4 means "four times better than needed" when passing, "four times worse"
  // when failing. A ratio, so it reads the same on any machine.
  const factor =
    g.op === '<' ? g.threshold / Math.max(g.value, 1e-9) : g.value / Math.max(g.threshold, 1e-9);
  // Capped: a leak of -3 B/request is not "ten billion times" inside its threshold.
  const margin = Math.min(pass ? factor : 1 / Math.max(factor, 1e-9), 1000);
  return {
    id: g.id,
    label: g.label,
    value: g.value,
    op: g.op,
    threshold: g.threshold,
    unit: g.unit,
    scale: g.scale || null,
    pass,
    margin,
    meaning: pass ? g.pass_meaning : g.fail_meaning,
  };
}

/**
 * Compares a response with what it should be.
 * @param {string} name the request, e.g. 'GET /auth with a wrong password'
 * @param {{status:number, body:string, headers:object}|Error} actual
 * @param {{status:number, body?:(body:string, headers:object) => string|null}} expected
 *   `body` returns null when the body is right, or a short description of what is wrong.
 */
function responseCase(name, actual, expected) {
  if (actual instanceof Error) {
    return { name, pass: false, expected: `status ${expected.status}`, actual: actual.message };
  }
  if (actual.status !== expected.status) {
    return {
      name,
      pass: false,
      expected: `status ${expected.status}`,
      actual: `status ${actual.status}${actual.body ? `: ${truncate(actual.body)}` : ''}`,
    };
  }
  const problem = expected.body ? expected.body(actual.body, actual.headers) : null;
  return problem
    ? { name, pass: false, expected: expected.describe || `status ${expected.status}`, actual: problem }
    : { name, pass: true, expected: `status ${expected.status}`, actual: `status ${actual.status}` };
}

function truncate(text, max = 120) {
  const flat = String(text).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A count with its noun, singular for one: "1 request", "3 requests". */
function counted(n, singular, plural = `${singular}s`) {
  return `${n} ${n === 1 ? singular : plural}`;
}

/**
 * The response case "served by the app's own process". The probe inside the
 * app counts the requests its own servers receive; requests answered that it
 * did not receive went to other processes (a cluster's workers, a copy of
 * the app behind a proxy), which the lab's lesson is not about: one
 * process's event loop, pool, heap or budget.
 * @param {object} o
 * @param {string} o.name the case's name, as the lab's output words it
 * @param {number} o.answered requests the check sent that were answered
 * @param {number} o.received of them, those the app's own process received
 * @param {number} [o.allowed=0] the share that may go uncounted (requests
 *   still in flight when a count was read)
 * @param {string} o.why what the lab needs one process for, said when it fails
 */
function ownProcessCase({ name, answered, received, allowed = 0, why }) {
  const elsewhere = answered > 0 ? Math.max(0, 1 - received / answered) : 0;
  const pass = elsewhere <= allowed;
  return {
    name,
    pass,
    expected: 'the process the check started receives every request',
    actual: pass ? 'it does' : `it received ${received} of ${answered}: ${Math.max(1, Math.round(100 * elsewhere))}% went to other processes (a cluster?): ${why}`,
  };
}

/**
 * pass     every response right and every gate met
 * fail     a wrong response, a gate missed, or the app crashed
 * noisy    the machine was too busy to measure reliably: rerun
 */
function verdictOf({ gates, responses, noise, crash }) {
  if (crash) return 'fail';
  if (responses.some((r) => !r.pass)) return 'fail';
  // A gate failed beyond doubt (see judge in define-check.js): the noise of
  // another measurement cannot make it a pass, so it is a fail, as a check
  // that stops early already says.
  if (gates.some((g) => g.decisive)) return 'fail';
  if (noise.length > 0) return 'noisy';
  return gates.every((g) => g.pass) ? 'pass' : 'fail';
}

module.exports = { gate, responseCase, ownProcessCase, verdictOf, truncate, counted };
