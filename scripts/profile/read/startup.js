'use strict';
// Reads a start-up: the CPU profile of a process from its first line until
// its first answers (--cpu-prof), with the timeline the probe reports
// (performance.nodeTiming, when the app listened, when its first request
// arrived and its first answers left, the event loop's idle time at each)
// and the moments the workbook saw (spawn, listening, the answers).
//
// Where the CPU went is told by what the app's top level did: each function
// of the app it called, and each module it required (everything that module
// ran, its own requires included). A CPU profile cannot tell one call site
// of `require` from another (its nodes are functions, not lines), so each
// required module is found as the first module frame below the app's
// `require` calls; what Node's loader spent around them (resolving, reading
// and compiling the files the app named) is a line of its own.

const path = require('node:path');
const { relative } = require('../../lib/labs');
const { originOf, toPath } = require('./origin');
const { table } = require('./table');
const { indexTree, NOT_WORK } = require('./cpuprofile');

/** The profile's tree weighted by time: each sample lasts until the next one (the last one, the mean). */
function indexProfile(profile) {
  const ms = new Map();
  const deltas = profile.timeDeltas || [];
  const mean = profile.samples.length ? (profile.endTime - profile.startTime) / 1000 / profile.samples.length : 0;
  profile.samples.forEach((id, i) => {
    const next = deltas[i + 1];
    ms.set(id, (ms.get(id) || 0) + (Number.isFinite(next) && next >= 0 ? next / 1000 : mean));
  });
  return indexTree(profile, ms);
}

/** A module's top-level function: CommonJS wraps each file in one, which starts on the file's first line. */
function isModuleFrame(frame) {
  return frame.functionName === '' && frame.lineNumber === 0 && Boolean(frame.url) && !toPath(frame.url).startsWith('node:');
}

/** Where a file is, for the learner: inside a package as node_modules/<package>/…, otherwise relative to the workbook. */
function shownPath(file, appFile) {
  const origin = originOf(file, appFile);
  if (origin.kind !== 'package') return relative(file);
  const inPackage = file.split(/[\\/]/).join('/').split(`node_modules/${origin.package}/`).pop();
  return `node_modules/${origin.package}/${inPackage}`;
}

/** What `require(…)` named, told from the file it loaded: a package (and the part of it) or a file of the lab. */
function requiredName(file, appFile) {
  const origin = originOf(file, appFile);
  if (origin.kind === 'package') {
    const inPackage = file.split(/[\\/]/).join('/').split(`node_modules/${origin.package}/`).pop();
    const part = inPackage.replace(/\.js$/, '');
    return part === 'index' || part === 'lib/index' || part === 'dist/cjs/handlebars' ? origin.package : `${origin.package}/${part}`;
  }
  const rel = path.relative(path.dirname(appFile), file).split(path.sep).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/**
 * @param {object} profile the parsed .cpuprofile
 * @param {{appFile:string, timing:{spawnedAt:number, listeningAt:number, answers:Array<{path:string, status:any, at:number}>, timeline:object}}} options
 *   times in ms since the epoch on the workbook's clock; `timeline` is the probe's (app.startupTimeline())
 */
function readStartup(profile, { appFile, timing }) {
  const { byId, parent, self, inclusive, root } = indexProfile(profile);
  const isApp = (n) => originOf(n.callFrame.url, appFile).kind === 'app';

  let busy = 0;
  let gc = 0;
  for (const [id, ms] of self) {
    const name = byId.get(id).callFrame.functionName;
    if (NOT_WORK.has(name)) continue;
    busy += ms;
    if (name === '(garbage collector)') gc += ms;
  }

  // The app's top level, and what it called.
  const parts = new Map();
  const add = (key, label, where, ms) => {
    const part = parts.get(key) || { label, where, ms: 0 };
    part.ms += ms;
    parts.set(key, part);
  };
  let topLevel = 0;
  let loader = 0;
  const wrappers = [...byId.values()].filter((n) => isApp(n) && isModuleFrame(n.callFrame));
  for (const w of wrappers) {
    topLevel += inclusive.get(w.id);
    for (const cid of w.children || []) {
      const c = byId.get(cid);
      if (isApp(c)) {
        const name = c.callFrame.functionName || '(anonymous)';
        add(`app:${name}:${c.callFrame.lineNumber}`, `${name}()`, `${relative(appFile)}:${c.callFrame.lineNumber + 1}`, inclusive.get(cid));
        continue;
      }
      // Below a call into Node (require, mostly): the modules it loaded.
      let found = 0;
      const seek = (id) => {
        const n = byId.get(id);
        if (isModuleFrame(n.callFrame) && !isApp(n)) {
          const file = toPath(n.callFrame.url);
          const name = requiredName(file, appFile);
          add(`module:${file}`, `require('${name}')`, shownPath(file, appFile), inclusive.get(id));
          found += inclusive.get(id);
          return;
        }
        if (originOf(n.callFrame.url, appFile).kind !== 'node' && n.callFrame.url) return; // another library's code
        for (const k of n.children || []) seek(k);
      };
      seek(cid);
      const rest = inclusive.get(cid) - found;
      if (c.callFrame.functionName === 'require' || originOf(c.callFrame.url, appFile).kind === 'node') loader += rest;
      else {
        const lib = originOf(c.callFrame.url, appFile).label;
        add(`calls:${lib}`, `calls into ${lib}`, 'e.g. setting up routes', rest);
      }
    }
  }
  // Everything the app's top level did not do itself: Node's own start
  // before it, and callbacks after it (timers, promises, requests).
  const notWorkUnder = (id) => {
    const n = byId.get(id);
    let t = NOT_WORK.has(n.callFrame.functionName) ? self.get(id) || 0 : 0;
    for (const c of n.children || []) t += notWorkUnder(c);
    return t;
  };
  const outside = busy - (topLevel - wrappers.reduce((t, w) => t + notWorkUnder(w.id), 0)) - gc;

  const sorted = [...parts.values()].sort((a, b) => b.ms - a.ms);
  const tl = timing.timeline || {};
  const origin = tl.timeOrigin;
  const since = (epochMs) => (Number.isFinite(epochMs) ? epochMs - timing.spawnedAt : null);
  const appTime = (ms) => (Number.isFinite(origin) && Number.isFinite(ms) && ms > 0 ? since(origin + ms) : null);
  const lastAnswer = Math.max(...timing.answers.map((a) => a.at));
  return {
    intervalUs: profile.samples.length ? Math.round((profile.endTime - profile.startTime) / profile.samples.length) : null,
    busyMs: busy,
    gcMs: gc,
    loaderMs: loader,
    outsideMs: Math.max(0, outside),
    parts: sorted,
    timeline: {
      processStarted: since(origin),
      bootstrapComplete: appTime(tl.nodeTiming && tl.nodeTiming.bootstrapComplete),
      loopStart: appTime(tl.nodeTiming && tl.nodeTiming.loopStart),
      listening: since(timing.listeningAt),
      answered: since(lastAnswer),
      answers: timing.answers.map((a) => ({ path: a.path, status: a.status, at: since(a.at) })),
    },
    idleBeforeListening: tl.listening ? tl.listening.idle : null,
    idleWhileAnswering: tl.firstRequest && tl.lastResponse ? tl.lastResponse.idle - tl.firstRequest.idle : null,
    cpuUntilAnswered: tl.lastResponse ? tl.lastResponse.cpu : null,
  };
}

const ms = (v) => (v === null || v === undefined ? '?' : Math.round(v).toLocaleString('en-US'));

function describeTimeline(s) {
  const t = s.timeline;
  const rows = [
    [0, 'spawned by the workbook'],
    [t.processStarted, 'the process started (performance.timeOrigin)'],
    [t.bootstrapComplete, 'Node ready to run your code (performance.nodeTiming.bootstrapComplete)'],
    [t.loopStart, "your app's top level done, the event loop started (nodeTiming.loopStart)"],
    [t.listening, 'listening'],
    [t.answered, `every example route answered (${t.answers.length} requests, sent at once when it listened)`],
  ].filter(([at]) => at !== null && Number.isFinite(at));
  const width = Math.max(...rows.map(([at]) => ms(at).length));
  const lines = rows.map(([at, what]) => `  ${ms(at).padStart(width)} ms  ${what}`);
  const notes = [];
  if (s.idleBeforeListening !== null) {
    notes.push(
      `Before it listened, the main thread sat idle (waiting, using no CPU) for ${ms(s.idleBeforeListening)} ms: connections, timers, reads. A CPU profile has no samples of what it waited for: time the waits themselves.`,
    );
  }
  if (s.idleWhileAnswering !== null && s.idleWhileAnswering >= 1) {
    notes.push(`Its first requests then waited, idle, for ${ms(s.idleWhileAnswering)} ms more.`);
  }
  if (s.cpuUntilAnswered !== null) notes.push(`CPU used until the last answer: ${ms(s.cpuUntilAnswered)} ms (all threads).`);
  const failed = t.answers.filter((a) => a.status !== 200);
  if (failed.length) notes.push(`Not answered 200: ${failed.map((a) => `${a.path} (${a.status})`).join(', ')}.`);
  return `Timeline of a start without the profiler (ms after spawn)\n${lines.join('\n')}\n\n${notes.join('\n')}`;
}

function describeStartupCpu(s, { top = 10 } = {}) {
  const pct = (v) => `${((100 * v) / Math.max(s.busyMs, 1e-9)).toFixed(1)}%`;
  const rows = s.parts.slice(0, top).map((p) => [pct(p.ms), ms(p.ms), p.label, p.where]);
  if (s.loaderMs >= 1) rows.push([pct(s.loaderMs), ms(s.loaderMs), "Node's module loader", 'resolving, reading and compiling the files required above']);
  rows.push([pct(s.outsideMs), ms(s.outsideMs), 'outside your top level', "Node's own start, then callbacks: timers, promises, requests"]);
  if (s.gcMs >= 1) rows.push([pct(s.gcMs), ms(s.gcMs), 'garbage collection', '']);
  return (
    `Where the start's CPU went, by what your app's top level did (${ms(s.busyMs)} ms of samples, one every ${s.intervalUs} µs)\n` +
    table(rows, ['share', 'ms', 'what', 'where'])
  );
}

module.exports = { readStartup, describeTimeline, describeStartupCpu, requiredName, shownPath };
