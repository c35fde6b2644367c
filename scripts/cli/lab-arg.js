'use strict';
// Resolving the <lab> argument and the file a command should act on.

const path = require('node:path');
const fs = require('node:fs');
const { findLab, labIdsHint } = require('../lib/labs');
const { UsageError } = require('./errors');

function requireLab(id, usage) {
  if (id === undefined) throw new UsageError(`Say which lab: ${labIdsHint()}.`, usage);
  const lab = findLab(id);
  if (!lab) throw new UsageError(`There is no lab "${id}". The labs are: ${labIdsHint()}.`, usage);
  return lab;
}

/** The app file for --app FILE / --solution / (default) the learner's copy. */
function appFileFor(lab, values, usage) {
  if (values.app && values.solution) throw new UsageError('Use either --app or --solution, not both.', usage);
  if (values.solution) return lab.solutionApp;
  if (values.app) {
    const file = path.resolve(values.app);
    if (!fs.existsSync(file)) throw new UsageError(`There is no file ${values.app}.`, usage);
    return file;
  }
  return lab.app;
}

/** A --port value: a whole number from 0 (any free port) to 65535. */
function portArg(raw, usage) {
  if (!/^\d+$/.test(raw) || Number(raw) > 65535) throw new UsageError(`--port must be a number from 0 to 65535, not "${raw}".`, usage);
  return raw;
}

module.exports = { requireLab, appFileFor, portArg };
