'use strict';
// Runs a lab's check on its shipped starter and its solution, alternately,
// and summarises each gate: the figure on each side, its margin to the
// threshold, and how many verdicts were right. Used by `npm run bench`
// (many runs, optionally with CPU hogs) and `workbook verify` (one run).

const { runCheck, rerunIfNoisy } = require('../checks/run-check');
const { materializeShipped } = require('./shipped');
const { median } = require('../harness/stats');

/**
 * @param {object} lab
 * @param {object} options
 * @param {number} [options.runs=1]
 * @param {(event:{side:string, run:number, result:object, right:boolean}) => void} [options.onResult]
 * @param {(event:{side:string, run:number}) => void} [options.onStart]
 */
async function measureLab(lab, { runs = 1, rerunNoisy = false, onResult = () => {}, onStart = () => {} } = {}) {
  const shipped = materializeShipped(lab);
  if (shipped.error) throw new Error(`cannot measure lab ${lab.id}: ${shipped.error}`);
  const sides = {
    starter: { app: shipped.app, expect: 'fail', results: [] },
    solution: { app: lab.solutionApp, expect: 'pass', results: [] },
  };
  for (let run = 1; run <= runs; run++) {
    for (const [side, s] of Object.entries(sides)) {
      onStart({ side, run });
      // Every gate, every time: margins are figures, not verdicts. "Too
      // noisy, rerun" declines to judge: with rerunNoisy (verify), it is run
      // once more; the bench counts it as it is.
      const once = () => runCheck(lab, { app: s.app, early: false });
      const result = rerunNoisy
        ? await rerunIfNoisy(once, (noisy) => {
            onResult({ side, run, result: noisy, right: false, retrying: true });
            onStart({ side, run });
          })
        : await once();
      s.results.push(result);
      onResult({ side, run, result, right: result.verdict === s.expect });
    }
  }
  return summarise(lab, sides);
}

function summarise(lab, sides) {
  const gateIds = [...new Set(Object.values(sides).flatMap((s) => s.results.flatMap((r) => r.gates.map((g) => g.id))))];
  const gates = gateIds.map((id) => {
    const row = { id };
    for (const [name, side] of Object.entries(sides)) {
      const found = side.results.map((r) => r.gates.find((g) => g.id === id)).filter(Boolean);
      if (!found.length) continue;
      Object.assign(row, { label: found[0].label, unit: found[0].unit, op: found[0].op, threshold: found[0].threshold });
      // Margins signed: positive inside the threshold, negative past it.
      const signed = found.map((g) => (g.pass ? g.margin : -g.margin));
      row[name] = {
        values: found.map((g) => g.value),
        median: median(found.map((g) => g.value)),
        // The figure divided by its threshold: below 1 passes a '<' gate.
        ratio: median(found.map((g) => g.value / g.threshold)),
        // The run closest to flipping this gate's usual outcome on this side:
        // the smallest margin inside where it usually passes, the smallest
        // past where it usually fails.
        worstMargin: median(signed) >= 0 ? Math.min(...signed) : Math.max(...signed),
        medianMargin: median(signed),
      };
    }
    return row;
  });
  const verdicts = Object.fromEntries(
    Object.entries(sides).map(([name, side]) => [
      name,
      { expected: side.expect, right: side.results.filter((r) => r.verdict === side.expect).length, total: side.results.length, all: side.results.map((r) => r.verdict) },
    ]),
  );
  const wall = Object.values(sides).flatMap((s) => s.results.map((r) => r.durationMs));
  return { lab: lab.slug, gates, verdicts, checkSeconds: { median: median(wall) / 1000, max: Math.max(...wall) / 1000 } };
}

/** "3.4× inside" / "2.1× past" for a signed margin. */
function marginText(m) {
  return `${Math.abs(m) >= 100 ? '>100' : Math.abs(m).toFixed(1)}× ${m >= 0 ? 'inside' : 'past'}`;
}

/**
 * Records a bench's summary in the lab's check/margins.json: one row per
 * (Node version, hog count); a new bench replaces the row it measured again.
 * Only benches of 10 runs or more are worth recording as margins. Each row
 * names the machine it was measured on: rows of other versions stay when a
 * bench runs elsewhere, so one machine for the whole file would misname them.
 */
function writeMargins(lab, summary, { node, hogs, runs, machine, date = new Date().toISOString().slice(0, 10) }) {
  const fs = require('node:fs');
  const { marginsOf, checkOf } = require('./labs');
  const margins = marginsOf(lab) || { about: 'Measured by `npm run bench -- --runs 10 [--hog] --write`.', benches: [] };
  // The thresholds as the check defines them (a calibrated one in units of
  // its yardstick, e.g. 0.35 t, not the milliseconds of one run).
  const defined = checkOf(lab).gates || {};
  const thresholds = Object.fromEntries(summary.gates.map((g) => [g.id, defined[g.id] ? defined[g.id].threshold : g.threshold]));
  const row = {
    node,
    hogs,
    runs,
    date,
    machine,
    thresholds,
    gates: Object.fromEntries(
      summary.gates.map((g) => [
        g.id,
        Object.fromEntries(
          ['starter', 'solution']
            .filter((side) => g[side])
            .map((side) => [side, { ratio: Number(g[side].ratio.toPrecision(3)), worst: Number(g[side].worstMargin.toPrecision(3)) }]),
        ),
      ]),
    ),
    verdicts: Object.fromEntries(Object.entries(summary.verdicts).map(([side, v]) => [side, `${v.right}/${v.total}`])),
    checkSeconds: { median: Number(summary.checkSeconds.median.toFixed(1)), max: Number(summary.checkSeconds.max.toFixed(1)) },
  };
  // Files from before rows named their machine said it once, for the last bench.
  delete margins.machine;
  // A row of another design of the check (other gates, or other thresholds
  // where the row recorded them) says nothing about this one: dropped.
  const sameDesign = (b) =>
    JSON.stringify(Object.keys(b.gates).sort()) === JSON.stringify(Object.keys(thresholds).sort()) &&
    (!b.thresholds || JSON.stringify(b.thresholds) === JSON.stringify(thresholds));
  margins.benches = [...margins.benches.filter((b) => !(b.node === node && b.hogs === hogs) && sameDesign(b)), row].sort(
    (a, b) => a.node.localeCompare(b.node, undefined, { numeric: true }) || a.hogs - b.hogs,
  );
  fs.writeFileSync(lab.marginsFile, `${JSON.stringify(margins, null, 2)}\n`);
}

module.exports = { measureLab, marginText, writeMargins };
