'use strict';
// The contract every lab's check fulfils, written once. A lab's
// labs/<slug>/check/index.js calls defineCheck({...}); its shape is validated
// when the module loads, so a missing piece is one clear sentence at once
// rather than an `undefined` deep inside a run.
//
// A check is two parts that read as the lesson they verify:
//   measure(ctx)  starts the app(s), checks responses, loads, and returns
//                 figures: one per declared gate, in the gate's unit
//   gates         the declarative judgement: what each figure means, its
//                 threshold and which way it must lie
// run(ctx) (what run-check.js calls) is measure, then judge.

const { gate: judgeGate } = require('./gates');
const { parseSpec } = require('../harness/call-counter');

// Kinds of chart the site knows how to draw from a result's series
// (site/src/components/LabCharts). A check lists the ones it feeds.
const CHART_KINDS = ['gate-bars', 'rounds', 'heap-over-requests', 'ceilings'];
// What capture.js can record for a walkthrough: the standard load's
// autocannon table (starter and solution), or one `workbook profile` tool.
const CAPTURE_KINDS = ['load', 'tool'];

/**
 * The kinds of file a capture step records (their names in
 * captures/index.json): both autocannon tables for `{ load }`, the tool's
 * reading for `{ tool }`, suffixed `-solution` when taken on the solution.
 * capture.js writes them; dev check looks for them.
 */
function captureKinds(step) {
  if (step.load) return ['autocannon-before', 'autocannon-after'];
  return [`${step.tool}${step.solution ? '-solution' : ''}`];
}

class CheckDefinitionError extends Error {}

/**
 * How far past its threshold a figure must be, as a factor, to decide a
 * check before the rest is measured: the margin the workbook aims for
 * between a broken app and its threshold. A fixed app whose figure lands
 * there is three times past the threshold it passes by three times or more
 * in every recorded bench: nine times its measured self.
 */
const DECISIVE = 3;

/** Thrown by ctx.decide() when the figures so far already decide a fail. */
class EarlyVerdict extends Error {
  constructor(partial, stage) {
    super(`decided at: ${stage}`);
    this.partial = partial;
    this.stage = stage;
  }
}

function problemsOf(spec, tools) {
  const problems = [];
  const need = (cond, text) => cond || problems.push(text);
  need(spec && typeof spec === 'object', 'defineCheck needs an object');
  if (!spec || typeof spec !== 'object') return problems;

  need(typeof spec.measure === 'function', 'no measure(ctx) function');
  need(typeof spec.advice === 'string' && spec.advice.length > 0, 'no advice (what to do after a fail, one sentence with a command)');

  const gates = spec.gates && typeof spec.gates === 'object' ? Object.entries(spec.gates) : [];
  need(gates.length > 0, 'no gates (at least one measured figure with a threshold)');
  for (const [id, g] of gates) {
    need(/^[a-z0-9]+(-[a-z0-9]+)*$/.test(id), `gate id "${id}" is not kebab-case`);
    need(typeof g.label === 'string', `gate ${id} has no label`);
    need(g.op === '<' || g.op === '>=', `gate ${id} has op ${JSON.stringify(g.op)}, not '<' or '>='`);
    need(Number.isFinite(g.threshold), `gate ${id} has no numeric threshold`);
    need(typeof g.unit === 'string', `gate ${id} has no unit`);
    need(typeof g.pass === 'string' && typeof g.fail === 'string', `gate ${id} needs both pass and fail meanings`);
    need(g.exact === undefined || typeof g.exact === 'boolean', `gate ${id}: exact must be true or false`);
  }

  const fails = spec.starterFails;
  need(Array.isArray(fails) && fails.length > 0, 'no starterFails (the gates the shipped starter must fail)');
  for (const id of fails || []) need(spec.gates && spec.gates[id], `starterFails names "${id}", which is not a gate`);
  const mayFail = spec.starterMayFail || [];
  need(Array.isArray(mayFail), 'starterMayFail must be a list of gate ids');
  for (const id of mayFail) {
    need(spec.gates && spec.gates[id], `starterMayFail names "${id}", which is not a gate`);
    need(!(fails || []).includes(id), `gate "${id}" is in both starterFails and starterMayFail`);
  }

  const load = spec.standardLoad;
  need(load && typeof load === 'object', 'no standardLoad (the load `workbook load` and the profilers apply)');
  if (load && typeof load === 'object') {
    need(typeof load.path === 'string', 'standardLoad has no path');
    need(Number.isInteger(load.connections) && load.connections > 0, 'standardLoad has no connections');
    need(Number.isFinite(load.duration) && load.duration > 0, 'standardLoad has no duration');
    need(typeof load.describe === 'string', 'standardLoad has no describe');
    need(load.request === undefined || typeof load.request === 'function', 'standardLoad.request must be a function (i) => ({ method, path, headers, body })');
  }

  need(spec.settings === undefined || typeof spec.settings === 'object', 'settings must be an object');

  // What the app is started with in every mode (a check, `workbook run`,
  // `load`, `profile`, `capture`), so that no app can tell them apart.
  need(spec.nodeArgs === undefined || (Array.isArray(spec.nodeArgs) && spec.nodeArgs.every((a) => typeof a === 'string' && a.startsWith('--'))), 'nodeArgs must be a list of node flags');
  need(spec.countCalls === undefined || parseSpec(spec.countCalls) !== null, 'countCalls must be "file#name": the file name of a module the app requires, and the name of the function it exports (e.g. "pricing.js#priceQuote")');
  const services = spec.services;
  need(services === undefined || (services && typeof services === 'object'), 'services must be an object: { env: [names], start({progress}) }');
  if (services && typeof services === 'object') {
    need(Array.isArray(services.env) && services.env.length > 0 && services.env.every((n) => typeof n === 'string' && /^[A-Z][A-Z0-9_]*$/.test(n) && !/^WORKBOOK_|^PORT$|^HOST$/.test(n)), 'services.env must list the environment variables the services give the app (upper case; not PORT, HOST or WORKBOOK_*)');
    need(typeof services.start === 'function', 'services.start({progress}) must start the services and resolve with { env, close }');
    need(typeof services.describe === 'string', 'services.describe must say what they are, for `workbook run` (e.g. "the catalogue service")');
  }

  // Prose the shared pages show for this lab (how the checks measure, the
  // trainers' page), so no shared page has to name a lab.
  const explain = spec.explain;
  need(explain && typeof explain === 'object', 'no explain (kind, calibration, noise: the prose the shared pages show for this lab)');
  if (explain && typeof explain === 'object') {
    need(['calibrated', 'reference', 'machine-independent', 'fixed-delay'].includes(explain.kind), `explain.kind ${JSON.stringify(explain.kind)} is not calibrated, reference, machine-independent or fixed-delay`);
    need(explain.kind !== 'calibrated' || typeof explain.calibration === 'string', 'explain.calibration (what t is) is missing for a calibrated check');
    need(typeof explain.noise === 'string', 'explain.noise (when the check says "too noisy, rerun") is missing');
  }

  const captures = spec.captures || [];
  need(Array.isArray(captures), 'captures must be a list');
  for (const c of captures) {
    const kind = Object.keys(c || {})[0];
    need(CAPTURE_KINDS.includes(kind), `capture ${JSON.stringify(c)} is not one of ${CAPTURE_KINDS.join(', ')}`);
    if (kind === 'tool' && tools) need(tools.includes(c.tool), `capture names tool "${c.tool}", which \`workbook profile\` does not have`);
  }
  const used = spec.tools || [];
  need(Array.isArray(used), 'tools must be a list');
  if (tools) for (const t of used) need(tools.includes(t), `tools names "${t}", which \`workbook profile\` does not have`);

  const cpu = spec.cpuProfile;
  need(cpu === undefined || (cpu && typeof cpu === 'object'), 'cpuProfile must be an object');
  if (cpu && typeof cpu === 'object') {
    need(cpu.from === undefined || cpu.from === 'start' || cpu.from === 'load', `cpuProfile.from is ${JSON.stringify(cpu.from)}, not 'start' or 'load'`);
    need(cpu.idle === undefined || typeof cpu.idle === 'boolean', 'cpuProfile.idle must be true or false');
    need(cpu.callersOf === undefined || (Array.isArray(cpu.callersOf) && cpu.callersOf.every((n) => typeof n === 'string')), 'cpuProfile.callersOf must be a list of function names');
  }

  const findings = spec.findings || {};
  need(typeof findings === 'object', 'findings must be an object: tool name → RegExp');
  for (const [tool, pattern] of Object.entries(findings)) {
    need(used.includes(tool), `findings names tool "${tool}", which is not in tools`);
    need(pattern instanceof RegExp, `findings.${tool} must be a RegExp`);
  }

  const charts = spec.charts || [];
  need(Array.isArray(charts), 'charts must be a list');
  for (const c of charts) {
    need(CHART_KINDS.includes(c && c.kind), `chart kind ${JSON.stringify(c && c.kind)} is not one of ${CHART_KINDS.join(', ')}`);
    for (const id of [c && c.gate, ...((c && c.gates) || []).map((x) => x.id)].filter(Boolean)) {
      need(spec.gates && spec.gates[id], `a chart names gate "${id}", which is not a gate`);
    }
  }
  return problems;
}

/**
 * @param {object} spec
 * @param {Record<string, {label:string, op:'<'|'>=', threshold:number, unit:string,
 *   per?:string, exact?:boolean, pass:string, fail:string}>} spec.gates keyed by gate id. `per`
 *   names the calibrated unit the threshold is a multiple of (e.g. 't'): the
 *   figure then carries that unit's size in ms. `exact`: the figure is a
 *   count the machine cannot blur (quotes held, queries per request), so a
 *   miss by one is as certain as a miss by ten.
 * @param {string[]} spec.starterFails the gates the shipped starter must fail
 * @param {string[]} [spec.starterMayFail] gates the shipped starter fails on some machines or
 *   Node versions and not on others (say why beside it); its verdict does not depend on them
 * @param {(ctx) => Promise<{figures:Record<string,{value:number, per?:number, scale?:string, certain?:string}>,
 *   responses:object[], info?:object[], noise?:string[], series?:object}>} spec.measure
 *   A figure's `certain` says why, if it fails, nothing measured later could
 *   undo the fail (ctx.decide then stops the check there).
 * @param {object} spec.standardLoad the load of `workbook load`, `profile`, `capture`: its
 *   `path` (GET), or `request(i)`, each request of the load as `{ method, path, headers, body }`
 *   (e.g. a batch to POST), with `path` naming the route
 * @param {object} [spec.settings] the check's own measurement knobs, shown on the site
 * @param {boolean} [spec.timesStart] the check times the app's start from its spawn (lab 14):
 *   nothing of the check's own runs while its apps start (see CheckContext.start)
 * @param {string[]} [spec.nodeArgs] node flags the app runs with in every mode (e.g. a
 *   production heap limit): a check, `workbook run`, `load`, `profile` and `capture` alike
 * @param {string} [spec.countCalls] "file#name": the app's calls to that function of that
 *   module are counted in every mode (call-counter.js), and the check reads them with
 *   `app.calls()`
 * @param {{env:string[], describe:string, start:(options:{progress:(line:string)=>void}) =>
 *   Promise<{env:Record<string,string>, close:() => Promise<void>}>}} [spec.services] what the
 *   app needs around it (a catalogue, a database): `workbook run`, `load`, `profile` and
 *   `capture` start them and give the app their `env`; a check starts its own (it needs to
 *   control them) and may give the app those variables and no others (CheckContext.start)
 * @param {string} spec.advice what to do after a fail, for the last line of `check`
 * @param {{kind:'calibrated'|'reference'|'machine-independent'|'fixed-delay', calibration?:string,
 *   noise:string}} spec.explain the prose the "how the checks measure" page shows for this lab
 *   (markdown: `code` and **bold**)
 * @param {Array<{load:true}|{tool:string}>} [spec.captures] what capture.js records for the walkthrough
 * @param {string[]} [spec.tools] the `workbook profile` tools its walkthrough teaches (tool matrix rows)
 * @param {{from?:'start'|'load', idle?:boolean, callersOf?:string[]}} [spec.cpuProfile] what
 *   `workbook profile --tool cpu` reads for this lab beyond its usual tables: the profile from
 *   the load's start (leaving the app's start-up out), the share of idle samples, the callers
 *   (outside Node.js and V8) of native functions such as `writev`
 * @param {Record<string, RegExp>} [spec.findings] what a tool must print on the starter, for the
 *   extended suite's profiler tests (e.g. the hot frame and its line in app.js)
 * @param {object[]} [spec.charts] what the site draws from a result
 * @param {string} [file] the module's path, for error messages
 */
function defineCheck(spec, file = 'a check module') {
  // Loaded lazily: the profile tools' index is cheap, but keeps the contract
  // independent of them in tests that build checks by hand.
  const tools = Object.keys(require('../profile/tools'));
  const problems = problemsOf(spec, tools);
  if (problems.length) {
    throw new CheckDefinitionError(`${file} does not define a complete check: ${problems.join('; ')}.`);
  }
  const gates = spec.gates;
  return Object.freeze({
    ...spec,
    timesStart: Boolean(spec.timesStart),
    nodeArgs: spec.nodeArgs || [],
    countCalls: spec.countCalls || null,
    services: spec.services || null,
    settings: spec.settings || {},
    starterMayFail: spec.starterMayFail || [],
    captures: spec.captures || [],
    tools: spec.tools || [],
    findings: spec.findings || {},
    charts: spec.charts || [],
    /** Threshold of a gate in its own terms (a multiple of `per` where it has one). */
    threshold(id) {
      return gates[id].threshold;
    },
    async run(ctx) {
      try {
        const measured = await spec.measure(ctx);
        return { ...measured, gates: judge(gates, measured.figures || {}, file) };
      } catch (err) {
        if (!(err instanceof EarlyVerdict)) throw err;
        const { figures = {}, ...rest } = err.partial;
        const judged = judge(gates, figures, file, { partial: true });
        return {
          responses: [],
          info: [],
          noise: [],
          series: {},
          ...rest,
          gates: judged,
          early: { stage: err.stage, unmeasured: Object.keys(gates).filter((id) => !judged.some((g) => g.id === id)) },
        };
      }
    },
    /**
     * Would these figures (some of the gates', as measure() returns them)
     * decide a fail already? A gate DECISIVE times past its threshold does.
     */
    decisive(figures) {
      return judge(gates, figures, file, { partial: true }).some((g) => g.decisive);
    },
  });
}

/**
 * Turns each figure into a judged gate, in the order the gates are
 * declared; with `partial`, the gates without a figure yet are left out.
 */
function judge(gates, figures, file, { partial = false } = {}) {
  return Object.entries(gates).flatMap(([id, g]) => {
    const figure = figures[id];
    if (partial && !(figure && Number.isFinite(figure.value))) return [];
    if (!figure || !Number.isFinite(figure.value)) {
      throw new CheckDefinitionError(`${file}: measure() returned no figure for gate ${id}.`);
    }
    const per = g.per ? figure.per : 1;
    if (g.per && !(per > 0)) throw new CheckDefinitionError(`${file}: gate ${id} is in units of ${g.per}, but its figure carries no size of ${g.per}.`);
    const judged = judgeGate({
      id,
      label: figure.label || g.label,
      value: figure.value,
      op: g.op,
      threshold: g.threshold * per,
      unit: g.unit,
      // "0.5 × t (t = 38.0 ms)": a multiple of a calibrated unit, and its size here.
      scale: g.per ? `${g.threshold} × ${g.per}${figure.scale ? ` (${figure.scale})` : ''}` : figure.scale || null,
      pass_meaning: g.pass,
      fail_meaning: g.fail,
    });
    // A fail no noise elsewhere could undo: a count over its limit, a
    // figure DECISIVE times past its threshold, or a figure whose measure
    // says why its fail is already certain (`certain`, a sentence the report
    // shows: lab 07's latency when even the fastest tenth of the requests
    // took two round trips). What stops a check early.
    judged.decisive = !judged.pass && (Boolean(g.exact) || judged.margin >= DECISIVE || Boolean(figure.certain));
    if (judged.decisive && figure.certain) judged.certain = figure.certain;
    return [judged];
  });
}

module.exports = { defineCheck, problemsOf, captureKinds, CheckDefinitionError, EarlyVerdict, DECISIVE, CHART_KINDS, CAPTURE_KINDS };
