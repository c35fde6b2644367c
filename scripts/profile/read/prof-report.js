'use strict';
// Reads the text report of `node --prof-process`: its sections, and from the
// bottom-up (heavy) profile, the hot spot in the learner's own file.

const path = require('node:path');
const { hotspotAt } = require('./source-line');

/** One bracketed section of the report, e.g. " [Summary]:". */
function section(report, name) {
  const lines = report.split('\n');
  const start = lines.findIndex((l) => l.trim() === `[${name}]:`);
  if (start < 0) return '';
  let end = start + 1;
  while (end < lines.length && !/^ \[.+\]:/.test(lines[end])) end++;
  return lines.slice(start, end).join('\n').trimEnd();
}

/** The header and first `rows` rows of the bottom-up (heavy) profile. */
function topOfBottomUp(report, rows) {
  const body = section(report, 'Bottom up (heavy) profile').split('\n');
  const header = body.findIndex((l) => /ticks\s+parent\s+name/.test(l));
  if (header < 0) return body.join('\n');
  return [body[0], body[header], ...body.slice(header + 1, header + 1 + rows)].join('\n');
}

const ROW = /^\s*(\d+)\s+([\d.]+)%(\s+)(.*)$/;
// Frames that only pass the work on: V8's builtins, and on some versions
// (Node 22) the node executable itself, listed as a shared library.
const PASS_THROUGH = /^Builtin: |(^|[\\/])node(\.exe)?$/;

/**
 * A frame of the report, "JS: ^name /path/to/file.js:line:column", as
 * [whole, name, file, line]; [] when it has no location. The path may hold
 * spaces ("C:\\Users\\Ada Lovelace\\…"): a frame in `knownFile` is split
 * at that path, any other at the first space (V8 names have none).
 */
function parseFrame(text, knownFile) {
  const m = /^(?:JS: )?[~^*+]?(.*?):(\d+):\d+$/.exec(text.trim());
  if (!m) return [];
  const [, where, line] = m;
  if (knownFile && where.endsWith(knownFile)) {
    return [text, where.slice(0, -knownFile.length).trim(), knownFile, line];
  }
  const space = where.indexOf(' ');
  return space < 0 ? [text, '', where, line] : [text, where.slice(0, space), where.slice(space + 1), line];
}

/**
 * In the bottom-up profile each heavy entry is followed by its callers,
 * indented one step per level. Follow each entry's heaviest chain of callers
 * to the first frame in the app file: the frame just above it is the callee
 * the app's line calls. A V8 builtin there is only the door to the work
 * (from Node 22, `Builtin: RegExpPrototypeTest` stands between a pattern's
 * code, `RegExp: <source>`, and the function that tests it; Node 22 also
 * lists the node executable between them): the callee named is then the
 * first frame above those, when there is one.
 */
function profHotspot(report, appFile) {
  const total = Number((/\((\d+) ticks,/.exec(report) || [])[1]) || 0;
  const body = section(report, 'Bottom up (heavy) profile').split('\n');
  const rows = body.map((l) => ROW.exec(l)).filter(Boolean).map((m) => ({ ticks: Number(m[1]), indent: m[3].length, name: m[4] }));
  const appPath = path.resolve(appFile);
  const frame = (name) => parseFrame(name, appPath);
  // The same call appears once per optimisation state (^ optimised,
  // ~ interpreted): add up every chain with the same callee and caller line.
  const calls = new Map();
  const counted = new Set();
  // Each row's parent (the row it is a caller of): a row inside the subtree
  // of a callee already counted adds nothing, as the callee's ticks hold its
  // own (Node 26 lists a pattern's code twice under it, once through the
  // builtin and once through the node executable, then the builtin).
  const parent = [];
  for (let i = 0, open = []; i < rows.length; i++) {
    while (open.length && rows[open[open.length - 1]].indent >= rows[i].indent) open.pop();
    parent[i] = open.length ? open[open.length - 1] : -1;
    open.push(i);
  }
  const insideCounted = (i) => {
    for (let p = parent[i]; p >= 0; p = parent[p]) if (counted.has(p)) return true;
    return false;
  };
  for (let i = 0; i < rows.length; i++) {
    if (insideCounted(i)) continue;
    const chain = [i];
    for (let j = i + 1; j < rows.length && rows[j].indent > rows[chain[chain.length - 1]].indent; j++) {
      if (rows[j].indent === rows[chain[chain.length - 1]].indent + 2) chain.push(j);
    }
    const appAt = chain.findIndex((k) => rows[k].name.includes(appPath));
    if (appAt < 1 || counted.has(chain[appAt - 1])) continue;
    let calleeAt = appAt - 1;
    while (calleeAt > 0 && PASS_THROUGH.test(rows[chain[calleeAt]].name.trim())) calleeAt--;
    const callee = rows[chain[calleeAt]];
    const caller = rows[chain[appAt]];
    for (let k = calleeAt; k < appAt; k++) counted.add(chain[k]);
    const key = `${frame(callee.name)[1]}|${frame(caller.name)[3]}`;
    const entry = calls.get(key) || { ticks: 0, callee, caller };
    entry.ticks += callee.ticks;
    calls.set(key, entry);
  }
  const best = [...calls.values()].sort((a, b) => b.ticks - a.ticks)[0];
  if (!best || !total) return null;
  const [, calleeName] = frame(best.callee.name);
  const [, callerName, , callerLine] = frame(best.caller.name);
  // No calleeOrigin: the report names no package, so the callee is named bare.
  return hotspotAt(appPath, Number(callerLine), { name: calleeName }, {
    sharePct: (100 * best.ticks) / total,
    callee: calleeName || best.callee.name,
    caller: callerName,
  });
}

module.exports = { section, topOfBottomUp, profHotspot, parseFrame };
