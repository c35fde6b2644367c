'use strict';
// Two heap snapshots, after a warm-up and after the load, and what grew
// between them: the Node.js guide's snapshot-comparison recipe, with the
// comparison printed rather than left for you to click through.

const fs = require('node:fs');
const path = require('node:path');
const { withApp, applyStandardLoad } = require('../session');
const { relative } = require('../../lib/labs');
const { parseSnapshot, summarize, compareSummaries, retainerPath, idsOf } = require('../read/heapsnapshot');
const { table } = require('../read/table');
const { findDeclaration } = require('../read/source-line');

const WARMUP_SECONDS = 2;

function kb(bytes) {
  const sign = bytes < 0 ? '-' : '+';
  const abs = Math.abs(bytes);
  return abs >= 1024 * 1024 ? `${sign}${(abs / 1024 / 1024).toFixed(2)} MB` : `${sign}${(abs / 1024).toFixed(1)} KB`;
}

function readSnapshot(file, progress) {
  progress(`Reading ${path.basename(file)} (${(fs.statSync(file).size / 1024 / 1024).toFixed(1)} MB)`);
  return parseSnapshot(JSON.parse(fs.readFileSync(file, 'utf8')));
}

module.exports = {
  name: 'heap',
  summary: 'two heap snapshots around the load, compared by constructor',
  async run({ lab, file, dir, duration, progress, print }) {
    const snapshots = [path.join(dir, '1-after-warm-up.heapsnapshot'), path.join(dir, '2-after-load.heapsnapshot')];
    await withApp({ lab, file, progress }, async (app) => {
      await applyStandardLoad({ lab, url: app.url, duration: WARMUP_SECONDS, progress, label: ' (warm-up)' });
      progress('Snapshot 1 (the app pauses while it is written)');
      await app.heapSnapshot(snapshots[0]);
      await applyStandardLoad({ lab, url: app.url, duration, progress });
      app.assertAlive('under load');
      progress('Snapshot 2');
      await app.heapSnapshot(snapshots[1]);
    });

    const before = readSnapshot(snapshots[0], progress);
    const after = readSnapshot(snapshots[1], progress);
    progress('Computing retained sizes (dominator trees) and comparing');
    const comparison = compareSummaries(summarize(before), summarize(after));
    const byRetained = [...comparison.rows].sort((a, b) => b.retainedDelta - a.retainedDelta).slice(0, 8);
    const byCount = [...comparison.rows].sort((a, b) => b.countDelta - a.countDelta).slice(0, 8);
    const row = (r) => [kb(r.retainedDelta), `${r.countDelta >= 0 ? '+' : ''}${r.countDelta}`, kb(r.shallowDelta), r.name];

    print(`Heap between the snapshots: ${kb(comparison.totalAfter - comparison.totalBefore)} (${(comparison.totalBefore / 1024 / 1024).toFixed(1)} MB → ${(comparison.totalAfter / 1024 / 1024).toFixed(1)} MB)`);
    print('Constructors whose retained size grew most\n' + table(byRetained.map(row), ['Δ retained', 'Δ count', 'Δ shallow', 'constructor']));
    print('Constructors whose instance count grew most\n' + table(byCount.map(row), ['Δ retained', 'Δ count', 'Δ shallow', 'constructor']));

    print('A holder\'s retained size includes everything it keeps alive, so the same megabytes show once for each holder in a chain.');
    // Follow an object the app created (not an engine-internal number or array).
    const grown = byCount.find((r) => r.countDelta > 0 && !r.name.startsWith('('));
    let holder = null;
    if (grown) {
      const chain = retainerPath(after, grown.name, idsOf(before));
      if (chain.length) {
        print(
          `What keeps one of the new ${grown.name} objects alive, from the GC roots down:\n  (GC roots)\n` +
            chain
              .map((step, i) => `  ${'  '.repeat(i)}└ ${step.edgeType === 'context' ? `variable "${step.edge}"` : step.edge} → ${step.node}`)
              .join('\n'),
        );
        holder = chain.filter((step) => step.edgeType === 'context').map((step) => step.edge).pop() || null;
        const line = holder && findDeclaration(file, holder);
        if (line) print(`The variable "${holder}" is declared at ${relative(file)}:${line.number}:\n    ${line.text}`);
      }
    }
    fs.writeFileSync(path.join(dir, 'comparison.json'), JSON.stringify({ ...comparison, holder }, null, 2));
    return {
      open: snapshots[1],
      howToOpen: 'Chrome DevTools → Memory → Load both snapshots, select the second, then "Comparison"',
    };
  },
};
