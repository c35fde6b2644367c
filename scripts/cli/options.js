'use strict';
// The options the CLI's commands share, parsed and defaulted in one place:
// the <lab> argument, the app to act on (--app, --solution), --port, and
// the load's --duration and --connections.

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

// The longest load a command applies: long enough for any profile, short
// enough that a forgotten command ends by itself.
const MAX_LOAD_SECONDS = 120;

/**
 * --duration S and --connections N for commands that load an app (load,
 * profile): the lab's standard load unless given, and the same limits and
 * messages everywhere.
 */
function loadArgs(lab, values, usage) {
  const standard = require('../lib/labs').checkOf(lab).standardLoad;
  const duration = Number(values.duration ?? standard.duration);
  if (!(duration >= 1 && duration <= MAX_LOAD_SECONDS)) {
    throw new UsageError(`--duration must be a number of seconds from 1 to ${MAX_LOAD_SECONDS}, not "${values.duration}".`, usage);
  }
  const connections = Number(values.connections ?? standard.connections);
  if (!(Number.isInteger(connections) && connections >= 1 && connections <= 1000)) {
    throw new UsageError(`--connections must be a whole number from 1 to 1000, not "${values.connections}".`, usage);
  }
  return { standard, duration, connections };
}

/** The options of a command that runs a lab's app: yours, the solution, or a file. */
const APP_OPTIONS = { app: { type: 'string' }, solution: { type: 'boolean' } };
const LOAD_OPTIONS = { duration: { type: 'string' }, connections: { type: 'string' } };

module.exports = { requireLab, appFileFor, portArg, loadArgs, APP_OPTIONS, LOAD_OPTIONS, MAX_LOAD_SECONDS };
