'use strict';
// `--trace-gc`: one line per garbage collection, as in the Node.js guide's
// "Tracing garbage collection". The whole trace is kept in a file; the
// terminal gets the summary that answers "is memory leaking?".

const fs = require('node:fs');
const path = require('node:path');
const { once } = require('node:events');
const { withApp, applyStandardLoad } = require('../session');
const { parseTraceGc, summarizeTraceGc } = require('../read/trace-gc');
const { table } = require('../read/table');

module.exports = {
  name: 'gc',
  summary: 'garbage-collection trace (--trace-gc) with a leak verdict',
  async run({ lab, file, dir, duration, heapMb, progress, print }) {
    const logFile = path.join(dir, 'trace-gc.log');
    const log = fs.createWriteStream(logFile);
    const nodeArgs = ['--trace-gc', ...(heapMb ? [`--max-old-space-size=${heapMb}`] : [])];
    try {
      await withApp({ lab, file, nodeArgs, output: log, progress }, async (app) => {
        await applyStandardLoad({ lab, url: app.url, duration, progress });
        app.assertAlive('under load');
      });
    } finally {
      log.end();
      await once(log, 'close');
    }
    const events = parseTraceGc(fs.readFileSync(logFile, 'utf8'));
    const summary = summarizeTraceGc(events);
    print(
      `Collections during the run\n` +
        table(
          [
            [String(summary.young.count), `young generation (${summary.young.types.join(', ') || 'Scavenge'})`, `${summary.young.pauseMs.toFixed(1)} ms paused`],
            [String(summary.old.count), `full heap (${summary.old.types.join(', ') || 'Mark-Compact'})`, `${summary.old.pauseMs.toFixed(1)} ms paused`],
          ],
          ['count', 'kind', 'total pause'],
        ),
    );
    if (summary.old.count) {
      print(
        'Heap left after each full collection (what survived: the live data)\n' +
          table(summary.old.after.map((e) => [`${(e.atMs / 1000).toFixed(1)} s`, `${e.beforeMb.toFixed(1)} MB`, `${e.afterMb.toFixed(1)} MB`]), ['at', 'before', 'after']),
      );
    }
    const t = summary.trend;
    if (!t || (!t.rising && !t.level)) {
      print(
        `Only ${summary.old.count} full collection${summary.old.count === 1 ? '' : 's'} in ${duration} s: not enough to tell a level heap from a slow leak. ` +
          `Run longer (--duration 30), or give the app a small heap, so that V8 collects it fully more often (--max-old-space-size ${heapMb ? Math.max(8, Math.floor(heapMb / 2)) : 16}).`,
      );
    } else if (t.rising) {
      print(
        `Verdict: the heap after each full collection keeps rising (${t.fromMb.toFixed(1)} → ${t.toMb.toFixed(1)} MB, ` +
          `${t.mbPerSecond.toFixed(2)} MB/s under this load). Each collection frees the requests' garbage, but the part that ` +
          'survives grows: something keeps a piece of every request. That is the signature of a leak.',
      );
    } else {
      print(
        `Verdict: the heap after full collections stays level (${t.fromMb.toFixed(1)} → ${t.toMb.toFixed(1)} MB): ` +
          'what requests allocate is freed again. No sign of a leak.',
      );
    }
    fs.writeFileSync(path.join(dir, 'summary.json'), JSON.stringify(summary, null, 2));
    return { open: logFile };
  },
};
