// The measured margins of each gate (labs/<slug>/check/margins.json, written
// by `npm run bench -- --write`), summarised for the site: per gate and side,
// the worst run across every recorded bench. Plain CommonJS without
// dependencies, so the pages and the site's tests read them alike.
//
// In margins.json a side's `worst` is signed: positive, the worst run was
// inside the threshold by that factor; negative, past it. The starter must
// land past its threshold and the solution inside it, so each side's safety
// is how far its worst run stayed on its own side (below 1: a wrong verdict).

const SIDES = ['starter', 'solution'];

/** 82×, 7.6×, 1.2×: a margin as the pages show it. */
function factorText(margin) {
  return `${margin >= 10 ? margin.toFixed(0) : margin.toFixed(1)}×`;
}

/** "Node v24.21.0, 1 CPU hog, 2 CPUs, AMD EPYC, linux-x64": the machine when the row names it. */
function benchText(bench) {
  return `Node ${bench.node}, ${bench.hogs} CPU hog${bench.hogs === 1 ? '' : 's'}${bench.machine ? `, ${bench.machine}` : ''}`;
}

/**
 * @param {{id:string}[]} gates the lab's gates
 * @param {object|null} margins the lab's margins.json
 * @returns {Array<{id:string, benches:number, starter:?{margin:number, right:boolean, bench:object},
 *   solution:?{margin:number, right:boolean, bench:object}}>} per gate and side, the worst run
 *   (`margin` ≥ 1 as a factor, `right` whether it landed on its side), or null when no bench recorded it
 */
function worstMargins(gates, margins) {
  const benches = (margins && margins.benches) || [];
  return gates.map(({ id }) => {
    const row = { id, benches: benches.filter((b) => b.gates && b.gates[id]).length };
    for (const side of SIDES) {
      let worst = null;
      for (const bench of benches) {
        const recorded = bench.gates && bench.gates[id] && bench.gates[id][side];
        if (!recorded || !Number.isFinite(recorded.worst)) continue;
        // Safety: positive on the side this app must land on.
        const safety = side === 'starter' ? -recorded.worst : recorded.worst;
        if (!worst || safety < worst.safety) worst = { safety, bench };
      }
      row[side] = worst && { margin: Math.abs(worst.safety), right: worst.safety > 0, bench: worst.bench };
    }
    return row;
  });
}

/**
 * The benches of a margins file, one sentence per machine, one clause per Node version:
 * "On 2 CPUs, AMD EPYC, linux-x64: Node v20.20.2, 2 benches of 10 runs (0 and 1 CPU hog beside the check); Node v26.12.1, 1 bench of 10 runs (0 CPU hogs beside the check)".
 * Rows from before rows named their machine are "On an unrecorded machine".
 */
function benchesText(margins) {
  const byMachine = new Map();
  for (const bench of (margins && margins.benches) || []) {
    const machine = bench.machine || '';
    if (!byMachine.has(machine)) byMachine.set(machine, new Map());
    const byNode = byMachine.get(machine);
    if (!byNode.has(bench.node)) byNode.set(bench.node, []);
    byNode.get(bench.node).push(bench);
  }
  return [...byMachine].map(([machine, byNode]) => {
    const clauses = [...byNode].map(([node, list]) => {
      const hogs = list.map((b) => b.hogs).sort((a, b) => a - b);
      const runs = [...new Set(list.map((b) => b.runs))].join(' or ');
      const hogList = hogs.length > 1 ? `${hogs.slice(0, -1).join(', ')} and ${hogs.at(-1)}` : String(hogs[0]);
      return `Node ${node}, ${list.length} bench${list.length === 1 ? '' : 'es'} of ${runs} runs (${hogList} CPU hog${hogs.at(-1) === 1 ? '' : 's'} beside the check)`;
    });
    return `On ${machine || 'an unrecorded machine'}: ${clauses.join('; ')}`;
  });
}

module.exports = { worstMargins, benchesText, benchText, factorText, SIDES };
