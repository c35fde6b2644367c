'use strict';
// Clinic.js Doctor's verdict, computed in the terminal from the data it
// collected (its HTML report computes the same analysis in the page).

const fs = require('node:fs');

let doctorModules = null;

// Doctor's own modules and its own copies of its dependencies (not whatever
// npm happened to hoist next to ours), loaded on first use: every workbook
// command loads this file, and only `profile --tool doctor` needs them.
function doctor() {
  if (doctorModules) return doctorModules;
  const doctorDir = require('node:path').dirname(require.resolve('@clinic/doctor/package.json'));
  const fromDoctor = (id) => require(require.resolve(id, { paths: [doctorDir] }));
  doctorModules = {
    pumpify: fromDoctor('pumpify'),
    endpoint: fromDoctor('endpoint'),
    Analysis: fromDoctor('./analysis/index.js'),
    getLoggingPaths: fromDoctor('@clinic/clinic-common').getLoggingPaths('doctor'),
    SystemInfoDecoder: fromDoctor('./format/system-info-decoder.js'),
    TraceEventDecoder: fromDoctor('./format/trace-event-decoder.js'),
    ProcessStatDecoder: fromDoctor('./format/process-stat-decoder.js'),
  };
  return doctorModules;
}

const CATEGORIES = {
  'event-loop': 'an event-loop issue: something blocks the event loop (long synchronous work)',
  io: 'an I/O issue: the process waits on something while the CPU sits idle',
  gc: 'a garbage-collection issue: collections block the process for long stretches',
  none: 'no issue',
  data: 'a data problem: Doctor could not analyse what it collected',
  unknown: 'an unclear picture: several kinds of issue at once',
};

// Each of Doctor's checks, worded as what was found: the figure it judged
// (over the stretch of the run Doctor analysed) and where Doctor draws the
// line. Doctor's own rules are in @clinic/doctor/analysis/analyse-*.js.
const CHECKS = {
  delay: {
    name: 'event-loop delay',
    found: (f) => `median ${ms(f.delay.median)}, max ${ms(f.delay.max)}`,
    rule: 'flagged at a median ≥ 10 ms or a max ≥ 100 ms',
  },
  loopUtilization: {
    name: 'event-loop utilisation',
    found: (f) => `median ${f.loopUtilization.median.toFixed(0)}% of the time busy`,
    rule: 'flagged at a median ≥ 95%',
  },
  // Doctor first sets aside the bursts where V8's helper threads push the
  // process above one core, then looks at the 90th percentile of the rest.
  cpu: {
    name: 'CPU usage',
    found: (f, outcome) =>
      outcome === 'performance'
        ? `even the busiest tenth of samples stayed under 90% of a core (overall median ${pct(f.cpu.median)}): the process was waiting, on I/O or for a CPU it shares`
        : // process.cpuUsage counts every thread: computing on the thread pool while
          // requests wait for it reads as fine too, so this says no more than that.
          `the busiest tenth of samples reached 90% of a core or more: the process, all its threads together, was computing rather than idle`,
    rule: 'flagged when they stay under 90%',
  },
  handles: {
    name: 'active handles',
    found: (f, outcome) =>
      `${f.handles.min === f.handles.max ? `${f.handles.min} throughout` : `${f.handles.min}–${f.handles.max}`}, ${outcome === 'performance' ? 'a build-up' : 'no build-up'}`,
    rule: 'flagged when their count keeps rising, as when I/O piles up',
  },
  memory: {
    name: 'garbage collection',
    found: (f) => `up to ${ms(f.gc.maxBlockedPerSecond)} of blocking GC in one second`,
    rule: 'flagged at ≥ 100 ms in a second',
  },
};

const ms = (x) => `${x.toFixed(0)} ms`;
const pct = (x) => `${(x * 100).toFixed(0)}%`;

/**
 * Doctor's analysis of the data in `dataDir`, with `figures`: what its checks
 * judged, measured over the same stretch of the run (Doctor leaves out the
 * start and the end, where the load was not yet or no longer running).
 */
function doctorVerdict(dataDir) {
  const { pumpify, endpoint, Analysis, getLoggingPaths, SystemInfoDecoder, TraceEventDecoder, ProcessStatDecoder } = doctor();
  const paths = getLoggingPaths({ path: dataDir });
  const systemInfo = pumpify.obj(fs.createReadStream(paths['/systeminfo']), new SystemInfoDecoder());
  const traceEvents = pumpify.obj(fs.createReadStream(paths['/traceevent']), new TraceEventDecoder(systemInfo));
  const processStats = pumpify.obj(fs.createReadStream(paths['/processstat']), new ProcessStatDecoder());
  // The same samples Doctor reads (pipe() hands every chunk to each 'data' listener).
  const stats = [];
  const events = [];
  processStats.on('data', (d) => stats.push(d));
  traceEvents.on('data', (d) => events.push(d));
  return new Promise((resolve, reject) => {
    new Analysis(systemInfo, traceEvents, processStats).pipe(
      endpoint({ objectMode: true }, (err, [analysis] = []) => (err ? reject(err) : resolve({ ...analysis, figures: figuresOf(analysis, stats, events) }))),
    );
  });
}

/** Doctor's figures over the interval it analysed, computed as its checks compute them. */
function figuresOf(analysis, stats, events) {
  const [from, to] = analysis.interval || [-Infinity, Infinity];
  const used = stats.filter((d) => d.timestamp >= from && d.timestamp <= to);
  if (used.length < 2) return null;
  const sorted = (key) => used.map((d) => d[key]).sort((a, b) => a - b);
  const quantile = (xs, q) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))];
  const delay = sorted('delay');
  const loop = sorted('loopUtilization');
  const cpu = sorted('cpu');
  const handles = sorted('handles');
  // Blocking GC per second, as analyse-memory.js sums it.
  const blocking = new Set(['V8.GCScavenger', 'V8.GCFinalizeMC', 'V8.GCIncrementalMarkingFinalize']);
  const perSecond = new Map();
  for (const e of events) {
    if (!blocking.has(e.name) || e.args.startTimestamp < from || e.args.endTimestamp > to) continue;
    const second = Math.round((e.args.startTimestamp + e.args.endTimestamp) / 2000);
    perSecond.set(second, (perSecond.get(second) || 0) + e.args.endTimestamp - e.args.startTimestamp);
  }
  return {
    delay: { median: quantile(delay, 0.5), max: delay.at(-1) },
    loopUtilization: { median: quantile(loop, 0.5) },
    cpu: { median: quantile(cpu, 0.5) },
    handles: { min: handles[0], max: handles.at(-1) },
    gc: { maxBlockedPerSecond: Math.max(0, ...perSecond.values()) },
  };
}

/**
 * The verdict in plain words, and each of Doctor's checks with its outcome
 * and what it found: `label` reads "<check>: <what was found> (<Doctor's rule>)".
 */
function describeVerdict(analysis) {
  const memory = analysis.issues.memory;
  const memoryIssue = Object.values(memory).includes('data') ? 'data' : Object.values(memory).includes('performance') ? 'performance' : 'none';
  const flags = { ...analysis.issues, memory: memoryIssue };
  const figures = analysis.figures;
  return {
    category: analysis.issueCategory,
    headline: `Doctor's verdict: "${analysis.issueCategory}", ${CATEGORIES[analysis.issueCategory] || analysis.issueCategory}.`,
    checks: Object.entries(CHECKS).map(([key, check]) => {
      const outcome = flags[key];
      const found = outcome === 'data' ? 'too few samples to judge' : figures ? check.found(figures, outcome) : null;
      return { key, label: `${check.name}: ${found ? `${found} (${check.rule})` : check.rule}`, outcome };
    }),
  };
}

module.exports = { doctorVerdict, describeVerdict };
