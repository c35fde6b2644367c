'use strict';
// Runs one lab's check against an app file and returns the result object
// that every front end shows: the CLI, `--json`, Jest, the site's panel and
// the bench. The lab-specific part lives in labs/<slug>/check/index.js
// (see define-check.js for its contract).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startApp, AppError } = require('../harness/app-process');
const { loadGenerator } = require('../harness/run-load');
const { startInChild } = require('../harness/in-child');
const { removeTemp } = require('../harness/temp');
const { verdictOf } = require('./gates');
const { EarlyVerdict, CheckDefinitionError } = require('./define-check');
const { relative, checkOf } = require('../lib/labs');

// How long an app in a check may take to listen, unless the check says.
const CHECK_START_TIMEOUT_MS = 10_000;

/**
 * @param {object} lab an entry of scripts/lib/labs.js
 * @param {object} [options]
 * @param {string} [options.app] the app file to check (default: the learner's)
 * @param {(event:{text:string, elapsedMs:number}) => void} [options.onProgress]
 * @param {number} [options.retries=1] extra attempts when the machine is too noisy
 * @param {boolean} [options.early=true] stop as soon as the verdict is certain (see
 *   CheckContext.decide); the bench turns it off, to measure every gate every time
 */
async function runCheck(lab, { app = lab.app, onProgress = () => {}, retries = 1, early = true } = {}) {
  const definition = checkOf(lab);
  const started = Date.now();
  const progress = (text) => onProgress({ text, elapsedMs: Date.now() - started });

  let result;
  for (let attempt = 1; attempt <= retries + 1; attempt++) {
    result = await attemptOnce(definition, lab, app, progress, early);
    result.attempts = attempt;
    if (result.verdict !== 'noisy' || attempt > retries) break;
    progress(`The machine was too busy to judge (${result.noise.join('; ')}). Measuring once more.`);
  }
  result.durationMs = Date.now() - started;
  return result;
}

async function attemptOnce(definition, lab, appFile, progress, early) {
  const ctx = new CheckContext(lab, definition, appFile, progress, early);
  const measured = { gates: [], responses: [], info: [], noise: [], series: {} };
  let crash = null;
  let error = null;
  try {
    Object.assign(measured, await definition.run(ctx));
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const failure = { message: err.message, detail: err.detail, reason: err.reason };
    if (err.role === 'reference') {
      error = {
        ...failure,
        message: `The reference solution could not run, so nothing was judged: ${err.message}`,
      };
    } else {
      crash = failure;
    }
  } finally {
    await ctx.stopAll();
  }
  const verdict = error ? 'error' : verdictOf({ ...measured, crash });
  return {
    lab: lab.slug,
    title: lab.title,
    app: relative(appFile),
    verdict,
    gates: measured.gates,
    responses: measured.responses,
    info: measured.info,
    noise: measured.noise,
    crash,
    error,
    series: measured.series,
    early: measured.early || null,
    environment: environment(),
    startedAt: new Date().toISOString(),
  };
}

class CheckContext {
  constructor(lab, check, appFile, progress, early = true) {
    this.lab = lab;
    this.early = early;
    /** The lab's check definition: its gates' thresholds, its settings. */
    this.check = check;
    this.candidate = appFile;
    this.reference = lab.solutionApp;
    this.progress = progress;
    this.apps = [];
    this.tempDirs = [];
    this.children = [];
  }

  /**
   * A plain Node process with `file` loaded, for calibrations (JavaScript in
   * a test runner's sandbox runs slower than in the app's own process), kept
   * for the whole check so that timing t again at the end costs only the
   * runs; it is ended when the check ends, however it ends.
   * @returns {{call: (name:string, args?:any[]) => Promise<any>}}
   */
  calibrator(file) {
    const child = startInChild(file);
    this.children.push(child);
    return child;
  }

  /**
   * A verdict as soon as it is certain. `partial` is what measure() would
   * return if it ended here: the figures of the gates measured so far, the
   * responses checked so far, information. When early verdicts are on and
   * a response is already wrong, or a figure is DECISIVE times past its
   * threshold (define-check.js), the rest cannot turn the verdict into a
   * pass: the check stops here, FAIL, and says what it did not measure.
   * Otherwise it carries on.
   * @param {{figures?:object, responses?:object[], info?:object[], series?:object}} partial
   * @param {string} stage what has been measured so far, for the learner
   */
  decide(partial, stage) {
    if (!this.early) return;
    const wrong = (partial.responses || []).some((r) => !r.pass);
    if (wrong || this.check.decisive(partial.figures || {})) {
      this.progress(`The verdict is certain after ${stage}: stopping here`);
      throw new EarlyVerdict(partial, stage);
    }
  }

  /** A scratch folder (e.g. an app's working directory), removed when the check ends. */
  tempDir() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `workbook-${this.lab.id}-`));
    this.tempDirs.push(dir);
    return dir;
  }

  /**
   * Starts an app for this check; it is stopped when the check ends, however
   * it ends. `role` says whose fault a failure is.
   */
  async start(file, role = file === this.candidate ? 'candidate' : 'reference', options = {}) {
    // The app gets what `workbook run` gives it, and no more: the lab's
    // flags, and the variables of the lab's services, which the check
    // started itself. Another variable would tell the app it is checked.
    const declared = this.check.services ? this.check.services.env : [];
    // (A variable set to undefined is one taken away, e.g. the learner's own
    // UV_THREADPOOL_SIZE: the app cannot tell that from one never set.)
    const extra = Object.entries(options.env || {}).filter(([name, value]) => value !== undefined && !declared.includes(name)).map(([name]) => name);
    if (extra.length) {
      throw new CheckDefinitionError(
        `${relative(this.lab.checkModule)} gives the app ${extra.join(', ')}, which \`workbook run\` does not: ` +
          `declare ${extra.length === 1 ? 'it' : 'them'} in the check's services (services.env), or leave ${extra.length === 1 ? 'it' : 'them'} out.`,
      );
    }
    options = {
      // Ten seconds to listen, unless the check says otherwise (lab 14's
      // times starts itself): a check judges, and an app that has not
      // listened by then has failed; \`workbook run\` waits a minute.
      timeoutMs: CHECK_START_TIMEOUT_MS,
      ...options,
      nodeArgs: [...this.check.nodeArgs, ...(options.nodeArgs || [])],
      countCalls: this.check.countCalls || undefined,
      // The load generator's modules load while the app starts on another
      // core, rather than when a load begins; not in a check that times the
      // start itself, whose own process must be free to see the app answer.
      whileStarting: this.check.timesStart ? undefined : loadGenerator,
    };
    try {
      const app = await startApp(file, options);
      app.role = role;
      this.apps.push(app);
      return app;
    } catch (err) {
      if (err instanceof AppError) err.role = role;
      throw err;
    }
  }

  /** Turns an unexpected exit of `app` into a crash report. */
  assertAlive(app, when) {
    try {
      app.assertAlive(when);
    } catch (err) {
      err.role = app.role;
      throw err;
    }
  }

  async stopAll() {
    await Promise.all([...this.apps.map((app) => app.stop()), ...this.children.map((child) => child.stop())]);
    for (const dir of this.tempDirs) removeTemp(dir); // retries a locked file, and only warns
  }
}

function environment() {
  const cpus = os.cpus();
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: os.availableParallelism ? os.availableParallelism() : cpus.length,
    cpuModel: cpus[0] ? cpus[0].model.trim() : 'unknown',
    threadpool: Number(process.env.UV_THREADPOOL_SIZE) || 4,
  };
}

/**
 * `once()` (a check), run once more when its verdict is "too noisy, rerun",
 * as the check advises a learner; any other verdict, right or wrong, is
 * kept. `onRerun(result)` hears of the noisy one first.
 */
async function rerunIfNoisy(once, onRerun = () => {}) {
  const result = await once();
  if (result.verdict !== 'noisy') return result;
  onRerun(result);
  return once();
}

module.exports = { runCheck, environment, rerunIfNoisy };
