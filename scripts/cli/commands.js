'use strict';
// The table of `workbook` commands: the CLI dispatches through it, and the
// docs tests check every command a walkthrough shows against it.

module.exports = {
  list: require('./list'),
  check: require('./check'),
  watch: require('./watch'),
  hint: require('./hint'),
  run: require('./run'),
  load: require('./load'),
  profile: require('./profile'),
  diff: require('./diff'),
  solution: require('./solution'),
  reset: require('./reset'),
  doctor: require('./doctor'),
  verify: require('./verify'),
  start: require('./start'),
  dev: require('./dev'),
};
