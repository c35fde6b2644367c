'use strict';
// `--report-on-fatalerror`: when the app dies of a fatal error (running out
// of heap is one), Node writes a diagnostic report, a JSON file, before the
// process aborts. The tool runs the app under the lab's heap limit with the
// report switched on and --trace-gc, loads it until it dies, and prints what
// a post-mortem reads first: the fatal error, the last collections, and the
// report's heap spaces, stacks, resource usage and open connections.

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { loadUntilOutOfMemory } = require('../until-oom');
const { readReportFile, describeCrash } = require('../read/diagnostic-report');
const { parseTraceGc } = require('../read/trace-gc');
const { table } = require('../read/table');

const LAST_COLLECTIONS = 6;

/**
 * V8's own rule for giving up, as this node applies it (Heap::
 * CheckIneffectiveMarkCompact in src/heap/heap.cc): four full collections
 * in a row that each leave the old generation above a share of its limit
 * (80% up to V8 13, Node 24; --ineffective-gc-size-threshold, 95% by
 * default, from V8 14, Node 26) while the program ran under 40% of the
 * time. The share is read from this node's V8 flags.
 */
function ineffectiveRule() {
  let flags = '';
  try {
    flags = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    // an unusual build: fall back on the rule of V8 13 and earlier
  }
  const size = /--ineffective-gc-size-threshold[\s\S]*?default: --ineffective-gc-size-threshold=([\d.]+)/.exec(flags);
  const mu = /--ineffective-gc-mutator-utilization-threshold[\s\S]*?default: --ineffective-gc-mutator-utilization-threshold=([\d.]+)/.exec(flags);
  return { size: size ? Number(size[1]) : 0.8, mu: mu ? Number(mu[1]) : 0.4 };
}

/** Why V8 ended the process, from its FATAL line and the last collections. */
function whyItDied(fatal, last, heapLimitMb) {
  const full = last.filter((e) => e.kind === 'old');
  const after = full.map((e) => e.afterMb);
  const range = (list, unit, digits = 0) => (list.length ? `${Math.min(...list).toFixed(digits)}–${Math.max(...list).toFixed(digits)}${unit}` : '');
  const seen = full.length
    ? ` Here the last full collections left ${range(after, ' MB')} (${range(after.map((mb) => (100 * mb) / heapLimitMb), '%')} of the ${heapLimitMb} MB old generation, young objects included)` +
      (full.some((e) => e.averageMu !== null) ? `, with the app running ${range(full.filter((e) => e.averageMu !== null).map((e) => e.averageMu), '', 2)} of the time (mu).` : '.')
    : '';
  if (/Ineffective mark-compacts/.test(fatal)) {
    const rule = ineffectiveRule();
    return (
      `"Ineffective mark-compacts near heap limit": V8 gave up after four full collections in a row each left the old generation over ${Math.round(rule.size * 100)}% of its limit ` +
      `while the app ran less than ${Math.round(rule.mu * 100)}% of the time (mu below ${rule.mu}): collecting was all it still did, and each collection freed too little to matter.${seen}`
    );
  }
  if (/Reached heap limit/.test(fatal)) {
    return `"Reached heap limit": an allocation still found no room after V8's last full collections: everything on the heap was in use.${seen}`;
  }
  return `Full collections back to back that free almost nothing: everything on the heap was still in use.${seen}`;
}

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
      const mu = (e) => (e.averageMu === null ? '' : e.averageMu.toFixed(2));
      print(
        `Its last ${last.length} garbage collections (--trace-gc; "mu" is the share of the time the app itself ran, averaged by V8)\n` +
          table(
            last.map((e) => [`${(e.atMs / 1000).toFixed(2)} s`, e.type, `${e.beforeMb.toFixed(1)} MB`, `${e.afterMb.toFixed(1)} MB`, `${e.pauseMs.toFixed(1)} ms`, mu(e)]),
            ['at', 'kind', 'before', 'after', 'pause', 'mu'],
          ) +
          `\n${whyItDied(fatal.join('\n'), last, run.heapLimitMb)}`,
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
