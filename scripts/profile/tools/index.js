'use strict';
// The profilers `workbook profile --tool <name>` knows, in the order the
// walkthroughs introduce them.
const clinic = require('./clinic');

module.exports = {
  prof: require('./prof'),
  cpu: require('./cpu'),
  startup: require('./startup'),
  flame: require('./flame'),
  heap: require('./heap'),
  gc: require('./gc'),
  alloc: require('./alloc'),
  report: require('./report'),
  'oom-snapshot': require('./oom-snapshot'),
  'clinic-doctor': clinic['clinic-doctor'],
  'clinic-flame': clinic['clinic-flame'],
  heapprofiler: clinic.heapprofiler,
  bubbleprof: clinic.bubbleprof,
  perf: require('./perf'),
  inspect: require('./inspect'),
};

// Old names that still work, and what they are now called. (`npx workbook
// doctor` is the preflight; Clinic.js Doctor is `--tool clinic-doctor`.)
Object.defineProperty(module.exports, 'ALIASES', { value: { doctor: 'clinic-doctor' }, enumerable: false });
