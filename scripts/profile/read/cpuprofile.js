'use strict';
// Reads a V8 CPU profile (.cpuprofile, as written by --cpu-prof) the way a
// learner needs it read: where the time went by function and by origin, and
// which line of *their* file leads into the heaviest work.

const fs = require('node:fs');
const { relative } = require('../../lib/labs');
const { originOf, toPath } = require('./origin');
const { hotspotAt } = require('./source-line');

const NOT_WORK = new Set(['(idle)', '(program)']);

// tools/cpu.js reads one profile twice (its reading, its flame graph): index it once.
const indexed = new WeakMap();

function index(profile) {
  if (!indexed.has(profile)) indexed.set(profile, indexOnce(profile));
  return indexed.get(profile);
}

function indexOnce(profile) {
  const self = new Map();
  for (const id of profile.samples) self.set(id, (self.get(id) || 0) + 1);
  return indexTree(profile, self);
}

/**
 * A profile's tree, weighted by `self` (each node's own weight: a count of
 * samples here, milliseconds in the start-up reader): nodes by id, each
 * node's parent, its inclusive weight (its own and its descendants'), and
 * the root.
 */
function indexTree(profile, self) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  // Inclusive weights, children before parents.
  const inclusive = new Map();
  const visit = (id) => {
    const n = byId.get(id);
    let total = self.get(id) || 0;
    for (const c of n.children || []) total += visit(c);
    inclusive.set(id, total);
    return total;
  };
  const root = profile.nodes.find((n) => !parent.has(n.id));
  visit(root.id);
  return { byId, parent, self, inclusive, root };
}

function where(frame) {
  const file = toPath(frame.url);
  const shown = file.startsWith('node:') || !file ? file || '(native)' : relative(file);
  return `${shown}${file ? `:${frame.lineNumber + 1}` : ''}`;
}

/**
 * The profile from `fromUs` on (V8's clock, in µs, which on Linux, macOS
 * and Windows is the monotonic clock process.hrtime() reads too): the same
 * nodes, the samples taken since. A profile written with --cpu-prof starts
 * with the process, and its start-up (loading modules) is not what a
 * profile under load is about. When `fromUs` falls outside the profile (a
 * clock that does not match), the profile is kept whole and `trimmed` is
 * false.
 * @returns {{profile:object, trimmed:boolean, dropped:number, seconds:number}}
 */
function profileFrom(profile, fromUs) {
  const seconds = (profile.endTime - profile.startTime) / 1e6;
  if (!Number.isFinite(fromUs) || fromUs <= profile.startTime || fromUs >= profile.endTime) return { profile, trimmed: false, dropped: 0, seconds };
  const samples = [];
  const timeDeltas = [];
  let at = profile.startTime;
  let last = null;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i];
    if (at < fromUs) return;
    timeDeltas.push(last === null ? at - fromUs : at - last);
    samples.push(id);
    last = at;
  });
  return {
    profile: { ...profile, startTime: fromUs, samples, timeDeltas },
    trimmed: true,
    dropped: profile.samples.length - samples.length,
    seconds: (profile.endTime - fromUs) / 1e6,
  };
}

/**
 * @param {object} profile parsed .cpuprofile JSON
 * @param {object} options
 * @param {string} options.appFile the learner's app file
 * @param {string[]} [options.callersOf] native functions (e.g. 'writev') whose
 *   samples to attribute to the first caller outside Node.js and V8
 */
function readCpuProfile(profile, { appFile, callersOf = [] }) {
  const { byId, self, inclusive } = index(profile);
  const total = profile.samples.length;
  // (idle): the event loop waiting. (program): V8 and Node running native
  // code with no JavaScript function on the stack, e.g. C++ called straight
  // from the event loop as I/O arrives (a TLS handshake's reads, parsing).
  // Neither has a function to name, so the tables leave both out; `program`
  // says how much CPU time that leaves unnamed.
  const outside = { '(idle)': 0, '(program)': 0 };
  for (const [id, count] of self) {
    const name = byId.get(id).callFrame.functionName;
    if (NOT_WORK.has(name)) outside[name] += count;
  }
  const notWork = outside['(idle)'] + outside['(program)'];
  const busy = Math.max(total - notWork, 1);
  const pct = (n) => (100 * n) / busy;

  // Self time by function (several nodes can be the same function).
  const functions = new Map();
  const origins = new Map();
  for (const [id, count] of self) {
    const { callFrame } = byId.get(id);
    if (NOT_WORK.has(callFrame.functionName)) continue;
    const key = `${callFrame.functionName}|${callFrame.url}|${callFrame.lineNumber}`;
    const entry = functions.get(key) || {
      functionName: callFrame.functionName || '(anonymous)',
      location: where(callFrame),
      origin: originOf(callFrame.url, appFile).label,
      samples: 0,
    };
    entry.samples += count;
    functions.set(key, entry);
    const origin = callFrame.functionName === '(garbage collector)' ? 'garbage collection' : originOf(callFrame.url, appFile).label;
    origins.set(origin, (origins.get(origin) || 0) + count);
  }
  const topSelf = [...functions.values()]
    .sort((a, b) => b.samples - a.samples)
    .slice(0, 10)
    .map((f) => ({ ...f, selfPct: pct(f.samples) }));
  const byOrigin = [...origins]
    .sort((a, b) => b[1] - a[1])
    .map(([origin, samples]) => ({ origin, samples, selfPct: pct(samples) }));

  return {
    totalSamples: total,
    busySamples: busy,
    idleSamples: outside['(idle)'],
    programSamples: outside['(program)'],
    topSelf,
    byOrigin,
    callers: callersOf.map((name) => callersOutsideNode(profile, name, appFile)),
    hotspot: hotspot({ byId, self, inclusive }, appFile, busy),
  };
}

/**
 * The samples of a (native) function, by the first frame above it that is
 * not Node.js or V8: which library, or the app, asked for the work. A
 * native function such as `writev` is reached through Node's own stream
 * code from everywhere; the frame that tells its callers apart is the first
 * one outside it.
 * @returns {{of:string, samples:number, rows:Array<{caller:string, origin:string, location:string, samples:number, sharePct:number}>}}
 */
function callersOutsideNode(profile, name, appFile) {
  const { byId, parent, self } = index(profile);
  const rows = new Map();
  let samples = 0;
  for (const [id, count] of self) {
    if (byId.get(id).callFrame.functionName !== name) continue;
    samples += count;
    let cur = parent.get(id);
    while (cur !== undefined && ['node', 'engine'].includes(originOf(byId.get(cur).callFrame.url, appFile).kind)) cur = parent.get(cur);
    const frame = cur === undefined ? null : byId.get(cur).callFrame;
    const key = frame ? `${frame.functionName}|${frame.url}|${frame.lineNumber}` : '(none)';
    const row = rows.get(key) || {
      caller: frame ? frame.functionName || '(anonymous)' : '(only Node.js and V8 above it)',
      origin: frame ? originOf(frame.url, appFile).label : '',
      location: frame ? where(frame) : '',
      samples: 0,
    };
    row.samples += count;
    rows.set(key, row);
  }
  return {
    of: name,
    samples,
    rows: [...rows.values()].sort((a, b) => b.samples - a.samples).map((r) => ({ ...r, sharePct: samples ? (100 * r.samples) / samples : 0 })),
  };
}

/**
 * The call from the learner's code under which most work happens: over every
 * (app function → non-app callee) edge, the samples beneath the callee that
 * are not themselves back in app code (helpers the library calls back are
 * the app's own time). `next` is skipped: in Express and Connect it is the
 * rest of the request, not a piece of work.
 */
function hotspot({ byId, self, inclusive }, appFile, busy) {
  const appOwned = new Map(); // samples beneath a node that are in app frames
  const isApp = (id) => originOf(byId.get(id).callFrame.url, appFile).kind === 'app';
  const appSamplesUnder = (id) => {
    if (appOwned.has(id)) return appOwned.get(id);
    const n = byId.get(id);
    let count = isApp(id) ? inclusive.get(id) : 0;
    if (!isApp(id)) for (const c of n.children || []) count += appSamplesUnder(c);
    appOwned.set(id, count);
    return count;
  };

  const edges = new Map();
  for (const n of byId.values()) {
    if (!isApp(n.id)) continue;
    for (const c of n.children || []) {
      if (isApp(c)) continue;
      const callee = byId.get(c).callFrame;
      if (callee.functionName === 'next' || NOT_WORK.has(callee.functionName)) continue;
      const key = `${n.callFrame.functionName}|${n.callFrame.lineNumber}|${callee.functionName}|${callee.url}`;
      const edge = edges.get(key) || { caller: n.callFrame, callee, samples: 0 };
      edge.samples += inclusive.get(c) - appSamplesUnder(c);
      edges.set(key, edge);
    }
  }
  const best = [...edges.values()].sort((a, b) => b.samples - a.samples)[0];
  const own = ownTime({ byId, self }, isApp, appFile, busy);
  const origin = best && originOf(best.callee.url, appFile);
  const call =
    best && best.samples > 0
      ? hotspotAt(appFile, best.caller.lineNumber + 1, { name: best.callee.functionName, package: origin.package }, {
          sharePct: (100 * best.samples) / busy,
          callee: best.callee.functionName || '(anonymous)',
          calleeOrigin: origin.label,
          caller: best.caller.functionName || '(anonymous)',
        })
      : null;
  // An app whose time is its own (loops, objects built line by line, a
  // built-in such as JSON.stringify, whose time a profile files under its
  // caller): the heaviest call out of it would be a side show.
  if (own && own.sharePct >= OWN.share && (!call || call.sharePct * OWN.overCall <= own.sharePct)) return { ...own, call };
  return call;
}

// When the app's own functions are the hot spot: they hold at least this
// share of the busy samples, and this many times the heaviest call out.
const OWN = { share: 50, overCall: 4 };

/**
 * The time in the app's own functions (their self time), and the function
 * that holds the most of it, with its first line.
 */
function ownTime({ byId, self }, isApp, appFile, busy) {
  const functions = new Map();
  let samples = 0;
  for (const [id, count] of self) {
    if (!count || !isApp(id)) continue;
    const { callFrame } = byId.get(id);
    const key = `${callFrame.functionName}|${callFrame.lineNumber}`;
    const entry = functions.get(key) || { frame: callFrame, samples: 0 };
    entry.samples += count;
    functions.set(key, entry);
    samples += count;
  }
  const top = [...functions.values()].sort((a, b) => b.samples - a.samples)[0];
  if (!top) return null;
  const line = top.frame.lineNumber + 1;
  const text = (fs.readFileSync(appFile, 'utf8').split(/\r?\n/)[line - 1] || '').trim();
  return {
    own: true,
    sharePct: (100 * samples) / busy,
    file: relative(appFile),
    top: { name: top.frame.functionName || '(anonymous)', line, text, sharePct: (100 * top.samples) / busy },
  };
}

/**
 * Folded stacks for a flame graph: one entry per distinct stack, root first,
 * frames named "function file:line". Idle time is left out.
 */
function foldCpuProfile(profile) {
  const { byId, parent } = index(profile);
  const name = (frame) => `${frame.functionName || '(anonymous)'} ${where(frame)}`;
  const stacks = new Map();
  for (const id of profile.samples) {
    if (byId.get(id).callFrame.functionName === '(idle)') continue;
    const frames = [];
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur).callFrame;
      if (frame.functionName !== '(root)') frames.push(name(frame));
    }
    const key = frames.reverse().join('\n');
    stacks.set(key, (stacks.get(key) || 0) + 1);
  }
  return [...stacks].map(([key, count]) => [key.split('\n'), count]);
}

/**
 * The line under the tables about what they leave out: the share of the
 * samples that were (program), native work with no JavaScript on the stack,
 * of the samples that were not idle (the CPU time the profile saw), and of
 * all. Null for a profile with no (program) samples. Node tells V8 the
 * thread is idle from the loop's prepare phase to its check phase
 * (StartProfilerIdleNotifier in src/env.cc), which includes the poll phase
 * where I/O callbacks run: their native work before JavaScript is entered
 * is sampled as (idle), not (program).
 */
function describeOutside({ totalSamples, idleSamples = 0, programSamples = 0 }) {
  if (!programSamples) return null;
  const running = Math.max(totalSamples - idleSamples, 1);
  const pct = (n, of) => `${((100 * n) / of).toFixed(1)}%`;
  return (
    `Not in the tables: (program), ${pct(programSamples, running)} of the samples that were not idle (${programSamples} of ${running}; ${pct(programSamples, totalSamples)} of all ${totalSamples}).\n` +
    '  Native work with no JavaScript function on the stack, outside the part of the event loop Node marks idle. (Native work done in an I/O callback before any JavaScript runs, such as a TLS handshake as its data arrives, is filed under (idle) instead.) The percentages above are of the busy samples, which leave both out.'
  );
}

/** A callee as the hot spot names it: bare for Node.js, V8 or no stated origin, else with its package. */
function callName(h) {
  const bare = !h.calleeOrigin || h.calleeOrigin === 'Node.js itself' || h.calleeOrigin === 'V8 and native code';
  return bare ? h.callee : `${h.callee} (${h.calleeOrigin})`;
}

/** "5", "48 and 49", "5, 6, 7, 8 and 9". */
function lineList(calls) {
  const numbers = calls.map((c) => String(c.line));
  return numbers.length > 1 ? `${numbers.slice(0, -1).join(', ')} and ${numbers.at(-1)}` : numbers[0];
}

/**
 * The "Hot spot in your code" paragraph: one sentence naming the hot spot in
 * the learner's code, and its line. `unit` names what was counted. A callee
 * in Node.js or V8, or of no stated origin, is named bare.
 *
 * A profile knows which function called the callee, not from which line
 * (scripts/profile/read/source-line.js), so the sentence names a line only
 * when that function calls the callee on one line; otherwise it names the
 * function and lists the lines that call it, and says the profile cannot
 * tell them apart.
 */
function describeHotspot(h, { unit = 'CPU samples' } = {}) {
  const header = 'Hot spot in your code\n  ';
  if (!h) return `${header}No CPU time was found under your own code: the time is in libraries or Node itself (see the table).`;
  if (h.own) {
    const named = h.top.name === '(anonymous)' ? 'the function' : `\`${h.top.name}\``;
    const aside = h.call ? ` (the heaviest, \`${callName(h.call)}\` from ${h.file}:${h.call.start.line}, holds ${h.call.sharePct.toFixed(0)}%)` : '';
    return (
      `${header}${h.sharePct.toFixed(0)}% of ${unit} are in your own functions, not under a call into a library or Node.js${aside}: ` +
      `see the self-time table. The most, ${h.top.sharePct.toFixed(0)}%, in ${named} at ${h.file}:${h.top.line}:\n    ${h.top.text}`
    );
  }
  const calleeName = callName(h);
  const named = h.caller && h.caller !== '(anonymous)' ? ` in ${h.caller}()` : '';
  const caller = h.topLevel ? `the top level of ${h.file}` : `the function at ${h.file}:${h.start.line}${named}`;
  const what = h.by === 'package' ? `into ${h.package}` : `to \`${h.callee}\``;
  const opening = `${h.sharePct.toFixed(0)}% of ${unit} are under \`${calleeName}\`, `;
  const quote = (calls) => calls.map((c) => `\n    ${calls.length > 1 ? `${c.line}: ` : ''}${c.text}`).join('');
  if (h.calls.length === 1 && h.by === 'name') {
    return `${header}${opening}called from ${h.file}:${h.line}${named}:${quote(h.calls)}`;
  }
  if (h.calls.length === 1) {
    return `${header}${opening}reached from ${caller}, whose one call ${what} is line ${h.line}:${quote(h.calls)}`;
  }
  if (h.calls.length > 1) {
    return (
      `${header}${opening}reached from ${caller}. It calls ${what.replace(/^to /, '')} on lines ${lineList(h.calls)}, ` +
      `and a profile does not record which call the samples came through:${quote(h.calls)}`
    );
  }
  return `${header}${opening}reached from ${caller}:${quote([h.start])}`;
}

module.exports = { readCpuProfile, describeHotspot, describeOutside, foldCpuProfile, profileFrom, callersOutsideNode, indexTree, NOT_WORK };
