'use strict';
// Prints the bubbles of a Clinic.js Bubbleprof report as a tree in the
// terminal: each bubble (Bubbleprof's "cluster" of async operations) under
// the bubble whose code started it.
// It loads the data embedded in the report with Bubbleprof's own data model,
// the code its page runs in the browser, so the tree is the one the page
// draws.
//
// `npx workbook profile <lab> --tool bubbleprof` prints it; on any report:
//   node scripts/profile/read/bubbleprof-tree.js <report.html> [--all]
//
// Without --all, two kinds of bubble are left out, with their children: the
// ones Node.js and its libraries start on their own behalf (nextTick,
// promise, timeout, wasm, connection.connect, ...), and small ones, whose
// time is under a fifth of the largest named bubble's. What stays is named
// after the functions of your code and your libraries that started it.

const fs = require('node:fs');
const loadData = require('@clinic/bubbleprof/visualizer/data/index.js');

const PLUMBING = new Set(['nextTick', 'promise', 'timeout', 'Timeout', 'wasm', 'connection.connect', 'miscellaneous', 'on-net-listen', 'Server']);

function readReport(file) {
  const html = fs.readFileSync(file, 'utf8');
  const data = /<script[^>]*id="clinic-data"[^>]*>([\s\S]*?)<\/script>/.exec(html);
  if (!data) throw new Error(`${file} holds no Bubbleprof data: is it a clinic-bubbleprof.html report?`);
  return loadData({}, JSON.parse(data[1]));
}

/** A bubble's time as the page sizes it: waiting for it (between) and in it (within). */
const time = (cluster) => cluster.getBetweenTime() + cluster.getWithinTime();

/** The report's bubbles as lines of an indented tree, and how many were left out. */
function bubbleTree(dataSet, { all = false } = {}) {
  const clusters = [...dataSet.clusterNodes.values()];
  const children = new Map();
  for (const c of clusters) children.set(c.parentClusterId, [...(children.get(c.parentClusterId) || []), c]);
  const kids = (c) => (children.get(c.clusterId) || []).filter((k) => all || !PLUMBING.has(k.name));
  // The largest time in a bubble's named subtree: a small bubble stays when
  // a large one hangs off it (the start-up bubbles the server hangs off).
  const largest = new Map();
  const largestIn = (c) => {
    if (!largest.has(c)) largest.set(c, Math.max(time(c), ...kids(c).map(largestIn)));
    return largest.get(c);
  };
  const roots = clusters.filter((c) => !dataSet.clusterNodes.has(c.parentClusterId));
  const widest = Math.max(...roots.flatMap(kids).map(largestIn));
  const lines = [];
  let hidden = 0;
  const visit = (cluster, depth) => {
    lines.push(`${'  '.repeat(depth)}${cluster.name}`);
    for (const child of children.get(cluster.clusterId) || []) {
      if (all || (!PLUMBING.has(child.name) && largestIn(child) >= widest / 5)) visit(child, depth + 1);
      else hidden++;
    }
  };
  for (const root of roots) visit(root, 0);
  return { lines, hidden };
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith('--'));
  if (!file) {
    console.error('Usage: node scripts/profile/read/bubbleprof-tree.js <report.html> [--all]');
    process.exit(2);
  }
  const { lines, hidden } = bubbleTree(readReport(file), { all: args.includes('--all') });
  console.log(lines.join('\n'));
  if (hidden) console.log(`(${hidden} smaller or internal bubbles, and what hangs off them, left out: --all shows every one)`);
}

/** The tree as the profile command prints it. */
function describeBubbles(file) {
  const { lines, hidden } = bubbleTree(readReport(file));
  return [
    'Bubbles (groups of async operations), each under the one whose code started it:',
    ...lines.map((l) => `  ${l}`),
    ...(hidden ? [`(${hidden} smaller or internal bubbles left out: node scripts/profile/read/bubbleprof-tree.js <report> --all shows every one)`] : []),
  ].join('\n');
}

module.exports = { readReport, bubbleTree, describeBubbles };
