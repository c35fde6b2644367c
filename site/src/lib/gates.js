// How the site words a gate as its check definition declares it (the plugin's
// lab.gates, from labs/<slug>/check/index.js): "below 0.5 × t", "at least 0.6×".

/** "below", "at least": a gate's op in words. */
export function opWords(gate) {
  return gate.op === '<' ? 'below' : 'at least';
}

/** The threshold with its unit: "0.5 × t" (a multiple of a calibrated unit), "0.6×", "30 B/request". */
export function thresholdWithUnit(gate) {
  const value = gate.threshold.toLocaleString('en-GB');
  if (gate.per) return `${value} × ${gate.per}`;
  if (gate.unit === '×') return `${value}×`;
  return `${value} ${gate.unit}`;
}

/** One lab's gate by id; a name that does not exist fails the build with one sentence. */
export function gateOf(lab, id, where) {
  const gate = lab.gates.find((g) => g.id === id);
  if (!gate) {
    throw new Error(
      `${where} names gate "${id}", but ${lab.check.path} has no such gate (it has ${lab.gates.map((g) => g.id).join(', ')}): update the page that names it.`,
    );
  }
  return gate;
}
