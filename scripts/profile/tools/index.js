'use strict';
// The profilers `workbook profile --tool <name>` knows, in the order the
// walkthroughs introduce them.
const clinic = require('./clinic');

module.exports = {
  prof: require('./prof'),
  cpu: require('./cpu'),
  flame: require('./flame'),
  heap: require('./heap'),
  gc: require('./gc'),
  doctor: clinic.doctor,
  'clinic-flame': clinic['clinic-flame'],
  heapprofiler: clinic.heapprofiler,
  bubbleprof: clinic.bubbleprof,
  perf: require('./perf'),
};
