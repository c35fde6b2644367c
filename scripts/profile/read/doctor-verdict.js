'use strict';
// Clinic.js Doctor's verdict, computed in the terminal from the data it
// collected (its HTML report computes the same analysis in the page).

const fs = require('node:fs');

// Doctor's own modules and its own copies of its dependencies (not whatever
// npm happened to hoist next to ours).
const doctorDir = require('node:path').dirname(require.resolve('@clinic/doctor/package.json'));
const fromDoctor = (id) => require(require.resolve(id, { paths: [doctorDir] }));
const pumpify = fromDoctor('pumpify');
const endpoint = fromDoctor('endpoint');
const Analysis = fromDoctor('./analysis/index.js');
const getLoggingPaths = fromDoctor('@clinic/clinic-common').getLoggingPaths('doctor');
const SystemInfoDecoder = fromDoctor('./format/system-info-decoder.js');
const TraceEventDecoder = fromDoctor('./format/trace-event-decoder.js');
const ProcessStatDecoder = fromDoctor('./format/process-stat-decoder.js');

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
