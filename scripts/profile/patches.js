'use strict';
// The fixes the workbook applies to Clinic.js at install time
// (scripts/patches/, by patch-package from the root package's postinstall).
// npm re-extracts packages on some installs without running that script, so
// the tools check that the patches are in place before relying on them.

const fs = require('node:fs');

const PATCHES = [
  {
    name: "Clinic.js Doctor's empty-GC fix (node-clinic#480)",
    file: '@clinic/doctor/analysis/analyse-memory.js',
    marker: 'No blocking GC event in the analysed interval',
  },
  {
    name: "Clinic.js HeapProfiler's 127.0.0.1 binding",
    file: '@clinic/heap-profiler/src/index.js',
    marker: "server.listen(0, '127.0.0.1'",
  },
  {
    // Bubbleprof joins Node's trace logs with it. Node starts a new log
    // (node_trace.2.log, …) once one holds 2^19 trace events
    // (kTracesPerFile in Node's src/tracing/node_trace_writer.h): on lab 07,
    // 10 s of the standard load. The unpatched join then fails on Node 20+
    // with "premature close".
    name: "Clinic.js Bubbleprof's join of rotated trace logs",
    file: '@clinic/node-trace-log-join/index.js',
    marker: 'One file after another, in order.',
  },
];

/** The patches that are not applied, as {name, file}. */
function missingPatches() {
  return PATCHES.filter((p) => {
    try {
      const file = require.resolve(p.file);
      return !fs.readFileSync(file, 'utf8').includes(p.marker);
    } catch {
      return true;
    }
  });
}

const REAPPLY = 'npx patch-package --patch-dir scripts/patches (or npm ci)';

/** Throws one clear sentence when a patch a tool needs is missing. */
function requirePatches() {
  const missing = missingPatches();
  if (missing.length) {
    throw new Error(`${missing.map((p) => p.name).join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not applied; run ${REAPPLY}.`);
  }
}

module.exports = { missingPatches, requirePatches, REAPPLY };
