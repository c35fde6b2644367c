'use strict';
// `--heapsnapshot-near-heap-limit=1`: V8 calls Node back when the heap nears
// its limit, and Node writes a heap snapshot then, synchronously, before the
// crash (src/env.cc, Environment::NearHeapLimitCallback). The tool runs the
// app under the lab's heap limit with that flag, loads it until the snapshot
// is written, and reads it: what filled the heap by constructor, the largest
// single objects, and the chain of references that holds the most common
// kind of object, down to a variable in the app's own file.

const fs = require('node:fs');
const path = require('node:path');
const { loadUntilOutOfMemory } = require('../until-oom');
const { parseSnapshot, summarize, retainerPath, largestObjects, functionOf, awaitingGenerators } = require('../read/heapsnapshot');
const { readSnapshotFile } = require('../read/snapshot-file');
const { ROOT } = require('../../lib/labs');
const { findDeclaration, findCallLines } = require('../read/source-line');
const { relative } = require('../../lib/labs');
const { table } = require('../read/table');

const WROTE = /Wrote snapshot to (.+\.heapsnapshot)/;

function size(bytes) {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${(bytes / 1024).toFixed(1)} KB`;
}

/** A script's path on disk (scripts are named by path or by file: URL), or null. */
function localPath(file) {
  const local = file.startsWith('file://') ? require('node:url').fileURLToPath(file) : file;
  return path.isAbsolute(local) && fs.existsSync(local) ? local : null;
}

/** A script's name as the learner knows it: relative to the workbook when it is inside it. */
function sourceName(file) {
  const local = localPath(file) || file;
  return local.startsWith(ROOT) ? relative(local) : local;
}

function sourceLine(file, line) {
  const local = localPath(file);
  return local ? (fs.readFileSync(local, 'utf8').split(/\r?\n/)[line - 1] || '').trim() : '';
}

module.exports = {
  name: 'oom-snapshot',
  summary: 'a heap snapshot written as the heap nears its limit (--heapsnapshot-near-heap-limit), read by constructor',
  async run({ lab, file, dir, duration, progress, print }) {
    const logFile = path.join(dir, 'output.log');
    const output = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '');
    const started = () => fs.readdirSync(dir).some((f) => f.endsWith('.heapsnapshot'));
    let noted = null;
    let wrote = null;
    const run = await loadUntilOutOfMemory({
      lab,
      file,
      dir,
      nodeArgs: ['--heapsnapshot-near-heap-limit=1', `--diagnostic-dir=${dir}`],
      logFile,
      duration,
      progress,
      enough: () => {
        if (wrote === null && WROTE.test(output())) wrote = Date.now();
        return wrote !== null;
      },
      // The process stands still while it writes the snapshot: never stop it half-way.
      busy: () => {
        const writing = started() && !WROTE.test(output());
        if (writing && !noted) {
          noted = Date.now();
          progress('The heap is near its limit: the app stands still while Node writes the snapshot');
        }
        return writing;
      },
    });
    const written = WROTE.exec(output());
    if (!written) {
      print(
        `No snapshot: the heap never came near --max-old-space-size=${run.heapLimitMb} in ${run.seconds.toFixed(0)} s of the standard load (${run.answered} answered)` +
          (run.died ? `, though the app died (${run.exit.signal || `exit code ${run.exit.code}`}; see ${path.basename(logFile)})` : '') +
          '. A fixed app never gets there; on the starter, load it for longer (--duration 30).',
      );
      return { open: logFile };
    }
    const snapshotFile = path.join(dir, path.basename(written[1].trim()));
    const bytes = fs.statSync(snapshotFile).size;
    progress(`Reading ${path.basename(snapshotFile)} (${size(bytes)})`);
    // Streamed: JSON.parse of a file this size would need over a gigabyte at once.
    const graph = parseSnapshot(await readSnapshotFile(snapshotFile));
    progress('Computing retained sizes (the dominator tree)');
    const summary = summarize(graph);
    const classes = [...summary.byClass.values()];
    const byRetained = [...classes].sort((a, b) => b.retained - a.retained).slice(0, 8);
    const byShallow = [...classes].sort((a, b) => b.shallow - a.shallow).slice(0, 6);

    const took = noted && wrote ? ` Writing it stopped the app for about ${((wrote - noted) / 1000).toFixed(0)} s.` : '';
    print(`Heap snapshot written as the heap neared --max-old-space-size=${run.heapLimitMb}: ${size(summary.totalSize)} of objects, ${size(bytes)} on disk.${took}`);
    print(
      'Constructors by retained size (what would be freed with them)\n' +
        table(byRetained.map((c) => [size(c.retained), size(c.shallow), String(c.count), c.name]), ['retained', 'own size', 'count', 'constructor']),
    );
    print(
      'Constructors by their own size (where the bytes are)\n' +
        table(byShallow.map((c) => [size(c.shallow), String(c.count), c.name]), ['own size', 'count', 'constructor']),
    );
    const largest = largestObjects(graph, 5);
    print(
      'The largest single objects\n' +
        table(largest.map((o) => [size(o.size), o.name, o.preview === null ? '' : JSON.stringify(o.preview) + (o.preview.length >= 70 ? '…' : '')]), ['size', 'kind', 'begins']),
    );

    // Follow the most numerous kind of object the app made (not an engine-internal one).
    const made = [...classes].filter((c) => !c.name.startsWith('(') && !/^system \//.test(c.name)).sort((a, b) => b.count - a.count)[0];
    let holder = null;
    if (made) {
      const chain = retainerPath(graph, made.name, new Set());
      if (chain.length) {
        print(
          `What holds the ${made.count.toLocaleString('en-US')} ${made.name} objects, from the GC roots down (the shortest path to one held with the most others):\n  (GC roots)\n` +
            chain.map((step, i) => `  ${'  '.repeat(i)}└ ${step.edgeType === 'context' ? `variable "${step.edge}"` : step.edge} → ${step.node}`).join('\n'),
        );
        holder = chain.filter((step) => step.edgeType === 'context').map((step) => step.edge).pop() || null;
        const line = holder && findDeclaration(file, holder);
        if (line) print(`The variable "${holder}" is declared at ${relative(file)}:${line.number}:\n    ${line.text}`);
        // An async function waiting at an await keeps its locals in its
        // Generator object's registers, which have no names: say instead which
        // functions were waiting, and at which line, innermost first.
        const inner = chain.filter((step) => /^Generator of /.test(step.node)).pop();
        if (inner) {
          const frames = [inner.index, ...awaitingGenerators(graph, inner.index)].map((v) => functionOf(graph, v)).filter((f) => f && f.file && f.line);
          const lines = frames.map((f, i) => {
            const local = localPath(f.file);
            // Where it awaits the function inside it: the one line that calls it, when there is one.
            const found = i > 0 && frames[i - 1].name && local ? findCallLines(local, f.line, { name: frames[i - 1].name }) : null;
            const line = found && found.calls.length === 1 ? found.calls[0].line : f.line;
            const what = f.name ? `${f.name}()` : 'an anonymous async function';
            return `  ${i ? 'awaited by ' : ''}${what} at ${sourceName(f.file)}:${line}\n      ${sourceLine(f.file, line)}`;
          });
          if (lines.length) print(`The async functions holding them, suspended at an await, innermost first (an async stack, read from the heap):\n${lines.join('\n')}`);
        }
      }
    }
    fs.writeFileSync(
      path.join(dir, 'summary.json'),
      JSON.stringify({ seconds: run.seconds, heapLimitMb: run.heapLimitMb, totalSize: summary.totalSize, byRetained, byShallow, largest, holder }, null, 2),
    );
    return {
      open: snapshotFile,
      howToOpen: 'Chrome DevTools → Memory → Load, then the Summary view sorted by Retained Size',
    };
  },
};
