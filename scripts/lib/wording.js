'use strict';
// The words a check result is told in, shared by the terminal
// (scripts/checks/format.js, `watch`, `verify`) and the site
// (site/src/lib/format.js), so both say the same thing. No dependencies: the
// site's browser bundle imports this file as it is.

/** 1812 ms, 18.7 ms, 6.72 ms: about three significant digits. */
function formatNumber(value, unit) {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return `${value.toFixed(digits)}${unit ? ` ${unit}` : ''}`;
}

/** "< 25.8 ms", "≥ 0.60 ×": a gate's threshold. */
function thresholdText(gate, unit = gate.unit) {
  return `${gate.op === '<' ? '<' : '≥'} ${formatNumber(gate.threshold, unit)}`;
}

/** "needs < 25.8 ms". */
function needsText(gate, unit = gate.unit) {
  return `needs ${thresholdText(gate, unit)}`;
}

/** "7.8× inside the threshold", "over 100× past the threshold". */
function marginText(gate) {
  const times = gate.margin >= 100 ? 'over 100×' : `${gate.margin.toFixed(1)}×`;
  return `${times} ${gate.pass ? 'inside' : 'past'} the threshold`;
}

const VERDICT_WORDS = {
  pass: 'PASS',
  fail: 'FAIL',
  noisy: 'TOO NOISY, RERUN',
  error: 'COULD NOT CHECK',
};

module.exports = { formatNumber, thresholdText, needsText, marginText, VERDICT_WORDS };
