'use strict';
// The profilers `workbook profile --tool <name>` knows.
module.exports = {
  prof: require('./prof'),
};
