'use strict';
// The profilers `workbook profile --tool <name>` knows, in the order the
// walkthroughs introduce them.
module.exports = {
  prof: require('./prof'),
  cpu: require('./cpu'),
  heap: require('./heap'),
  gc: require('./gc'),
};
