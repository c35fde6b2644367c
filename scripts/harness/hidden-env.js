'use strict';
// The workbook's variables, out of a lab app's sight. The probe calls
// hideWorkbookEnv() when it is preloaded, before the app's code runs: the
// app then finds no WORKBOOK_* variable and no preload of the probe in
// NODE_OPTIONS, whether a check, `workbook run`, `load` or a profiler
// started it. census-member.js gives them back to each process the app
// starts, so those still join the census.

const { quoteForNodeOptions } = require('./node-options');

/**
 * Takes the workbook's variables out of this process's environment and its
 * preload out of NODE_OPTIONS, and returns them.
 */
function hideWorkbookEnv(env, probeFile) {
  const hidden = {};
  for (const name of Object.keys(env)) {
    if (/^WORKBOOK_/i.test(name)) {
      hidden[name] = env[name];
      delete env[name];
    }
  }
  if (typeof env.NODE_OPTIONS === 'string' && env.NODE_OPTIONS.includes(probeFile)) {
    hidden.NODE_OPTIONS = env.NODE_OPTIONS;
    const rest = withoutPreload(env.NODE_OPTIONS, probeFile);
    if (rest) env.NODE_OPTIONS = rest;
    else delete env.NODE_OPTIONS;
  }
  return hidden;
}

/** NODE_OPTIONS without `--require <probeFile>` (as node-options.js writes it, quoted or not). */
function withoutPreload(nodeOptions, probeFile) {
  const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const forms = [quoteForNodeOptions(probeFile), probeFile].map(escape).join('|');
  return nodeOptions.replace(new RegExp(`(?:^|\\s)(?:--require|-r)(?:\\s+|=)(?:${forms})(?=\\s|$)`, 'g'), '').replace(/\s+/g, ' ').trim();
}

module.exports = { hideWorkbookEnv, withoutPreload };
