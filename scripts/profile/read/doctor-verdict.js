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

const CHECKS = {
  delay: 'event-loop delay (median ≥ 10 ms or max ≥ 100 ms)',
  loopUtilization: 'event-loop utilisation (median ≥ 95%)',
  cpu: 'CPU usage (low while busy: waiting on I/O)',
  handles: 'active handles (growing: an I/O build-up)',
  memory: 'garbage collection (≥ 100 ms of blocking GC in a second)',
};

function doctorVerdict(dataDir) {
  const { pumpify, endpoint, Analysis, getLoggingPaths, SystemInfoDecoder, TraceEventDecoder, ProcessStatDecoder } = doctor();
  const paths = getLoggingPaths({ path: dataDir });
  const systemInfo = pumpify.obj(fs.createReadStream(paths['/systeminfo']), new SystemInfoDecoder());
  const traceEvents = pumpify.obj(fs.createReadStream(paths['/traceevent']), new TraceEventDecoder(systemInfo));
  const processStats = pumpify.obj(fs.createReadStream(paths['/processstat']), new ProcessStatDecoder());
  return new Promise((resolve, reject) => {
    new Analysis(systemInfo, traceEvents, processStats).pipe(
      endpoint({ objectMode: true }, (err, [analysis] = []) => (err ? reject(err) : resolve(analysis))),
    );
  });
}

/** The verdict in plain words, and each of Doctor's checks with its outcome. */
function describeVerdict(analysis) {
  const memory = analysis.issues.memory;
  const memoryIssue = Object.values(memory).includes('data') ? 'data' : Object.values(memory).includes('performance') ? 'performance' : 'none';
  const flags = { ...analysis.issues, memory: memoryIssue };
  return {
    category: analysis.issueCategory,
    headline: `Doctor's verdict: "${analysis.issueCategory}", ${CATEGORIES[analysis.issueCategory] || analysis.issueCategory}.`,
    checks: Object.entries(CHECKS).map(([key, label]) => ({ key, label, outcome: flags[key] })),
  };
}

module.exports = { doctorVerdict, describeVerdict };
