'use strict';
// `--report-on-fatalerror`: when the app dies of a fatal error (running out
// of heap is one), Node writes a diagnostic report, a JSON file, before the
// process aborts. The tool runs the app under the lab's heap limit with the
// report switched on and --trace-gc, loads it until it dies, and prints what
// a post-mortem reads first: the fatal error, the last collections, and the
// report's heap spaces, stacks, resource usage and open connections.

const fs = require('node:fs');
const path = require('node:path');
const { loadUntilOutOfMemory } = require('../until-oom');
const { readReportFile, describeCrash } = require('../read/diagnostic-report');
const { parseTraceGc } = require('../read/trace-gc');
const { table } = require('../read/table');

const LAST_COLLECTIONS = 6;

module.exports = {
  name: 'report',
  summary: 'the diagnostic report Node writes when the app runs out of memory (--report-on-fatalerror), with the last collections',
  async run({ lab, file, dir, duration, progress, print }) {
    const logFile = path.join(dir, 'output.log');
    const run = await loadUntilOutOfMemory({
      lab,
      file,
      dir,
      nodeArgs: ['--report-on-fatalerror', `--report-directory=${dir}`, '--trace-gc'],
      logFile,
      duration,
      progress,
    });
    const output = fs.readFileSync(logFile, 'utf8');
    const reportName = fs.readdirSync(dir).find((f) => /^report\..*\.json$/.test(f));
    if (!run.died || !reportName) {
      print(
        run.died
          ? `The app died (${run.exit.signal || `exit code ${run.exit.code}`}) but wrote no report: it was not a fatal error of Node's. Its output is in ${path.basename(logFile)}.`
          : `The app did not run out of memory in ${duration} s of the standard load under --max-old-space-size=${run.heapLimitMb} (${run.answered} answered): no fatal error, so no report. ` +
              'A fixed app keeps running; on the starter, load it for longer (--duration 30).',
      );
      return { open: logFile };
    }

    const fatal = output.split('\n').filter((line) => /^FATAL ERROR:|^Writing Node\.js report|^Node\.js report completed/.test(line.trim()));
    print(`The app died after ${run.seconds.toFixed(1)} s under --max-old-space-size=${run.heapLimitMb}, printing:\n${fatal.map((l) => `  ${l.trim()}`).join('\n')}`);

    // V8 prints its last few collections again as it dies: count each once.
    const seen = new Set();
    const collections = parseTraceGc(output).filter((e) => !seen.has(e.atMs) && seen.add(e.atMs));
    if (collections.length) {
      const last = collections.slice(-LAST_COLLECTIONS);
      print(
        `Its last ${last.length} garbage collections (--trace-gc)\n` +
          table(
            last.map((e) => [`${(e.atMs / 1000).toFixed(2)} s`, e.type, `${e.beforeMb.toFixed(1)} MB`, `${e.afterMb.toFixed(1)} MB`, `${e.pauseMs.toFixed(1)} ms`]),
            ['at', 'kind', 'before', 'after', 'pause'],
          ) +
          '\nFull collections back to back that free almost nothing: everything on the heap was still in use.',
      );
    }

    const reportFile = path.join(dir, reportName);
    const report = readReportFile(reportFile);
    print(describeCrash(report));
    fs.writeFileSync(path.join(dir, 'summary.json'), JSON.stringify({ seconds: run.seconds, heapLimitMb: run.heapLimitMb, report }, null, 2));
    return {
      open: reportFile,
      howToOpen: 'any JSON viewer; `javascriptHeap`, `javascriptStack`, `resourceUsage` and `libuv` are the sections read above',
    };
  },
};
