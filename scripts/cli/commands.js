'use strict';
// The table of `workbook` commands: the CLI dispatches through it, and the
// docs tests check every command a walkthrough shows against it.

module.exports = {
  list: require('./list'),
  check: require('./check'),
  run: require('./run'),
  load: require('./load'),
  profile: require('./profile'),
  reset: require('./reset'),
  start: require('./start'),
};
