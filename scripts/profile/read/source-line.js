'use strict';
// From "function F (defined at line L) spends its time in callee C" to the
// line of F that calls C: the bridge from a profile to the line to fix.
//
// A profile records where each function STARTS (a .cpuprofile's callFrame,
// a --prof tick's "file:line"), never the line a call was made from. So this
// reads F's own source and looks for calls to C in it, and says only what
// that can tell: when F calls C on one line, that line is the call; when it
// calls C on several, the profile cannot say which of them the samples came
// through, and the hot spot names the function and every one of those lines.

const fs = require('node:fs');
const { relative } = require('../../lib/labs');

function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Lines of the function starting at `startLine` (1-based), by brace depth. */
function functionBody(lines, startLine) {
  let depth = 0;
  let opened = false;
  const body = [];
  for (let i = startLine - 1; i < lines.length; i++) {
    body.push({ number: i + 1, text: lines[i] });
    for (const ch of lines[i].replace(/(["'`]).*?\1/g, '').replace(/\/\/.*$/, '')) {
      if (ch === '{') (depth++, (opened = true));
      else if (ch === '}') depth--;
    }
    if (opened && depth <= 0) break;
  }
  return body;
}

/**
 * The lines of the function starting at `startLine` that call `callee`: by
 * its name (`name(`), or, when no line does and the callee lives in an npm
 * package, by a call into that package (`handlebars.compile(`).
 *
 * A function that starts at line 1 with no braces of its own is the
 * module's top level (V8 profiles it as an anonymous function at line 1):
 * its "body" is the whole file.
 *
 * @param {string} file the app's source file
 * @param {number} startLine where the calling function starts (1-based)
 * @param {object} callee
 * @param {string} [callee.name] the called function's name, e.g. 'pbkdf2Sync'
 * @param {string} [callee.package] the npm package it lives in, e.g. 'handlebars'
 * @returns {{calls: Array<{line:number, text:string}>, by: 'name'|'package'|null,
 *   start: {line:number, text:string}}} the calling lines (none when no call
 *   can be recognised), what matched them, and the function's first line
 */
function findCallLines(file, startLine, { name, package: pkg } = {}) {
  const lines = fs.readFileSync(file, 'utf8').split(/\r?\n/);
  const topLevel = startLine <= 1;
  const body = topLevel ? lines.map((text, i) => ({ number: i + 1, text })) : functionBody(lines, startLine);
  const start = { line: startLine, text: (lines[startLine - 1] || '').trim() };
  const patterns = [];
  if (name && /^[\w$]+$/.test(name)) patterns.push(['name', new RegExp(`(^|[^\\w$])${escape(name)}\\s*\\(`)]);
  if (pkg) {
    const id = pkg.replace(/^@[^/]+\//, '').replace(/[^\w$]/g, '');
    patterns.push(['package', new RegExp(`(^|[^\\w$])${escape(id)}\\s*[.(]`)]);
  }
  for (const [by, pattern] of patterns) {
    // Skip the function's own header line when it is the callee's definition,
    // and comment lines.
    const calls = body
      .filter(({ text }, i) => (topLevel || i > 0 || !/function|=>/.test(text)) && !/^\s*(\/\/|\*)/.test(text) && pattern.test(text))
      .map(({ number, text }) => ({ line: number, text: text.trim() }));
    if (calls.length) return { calls, by, start };
  }
  return { calls: [], by: null, start };
}

/**
 * A hot spot as describeHotspot reads it: `fields` (sharePct, callee,
 * calleeOrigin, caller), then where in `appFile` the calls are, found with
 * findCallLines from the calling function's `startLine` and `callee`.
 */
function hotspotAt(appFile, startLine, callee, fields) {
  const { calls, by, start } = findCallLines(appFile, startLine, callee);
  return {
    ...fields,
    file: relative(appFile),
    start,
    calls,
    by,
    // The one line to show, when there is one: the only call found.
    line: calls.length === 1 ? calls[0].line : null,
    text: calls.length === 1 ? calls[0].text : null,
    topLevel: startLine <= 1,
    package: callee.package || null,
  };
}

/**
 * Where `name` is declared (const, let or var) in `file`: the heap readers'
 * bridge from a variable in a retainer chain to the line that keeps it.
 * @returns {{number:number, text:string}|null}
 */
function findDeclaration(file, name) {
  const lines = fs.readFileSync(file, 'utf8').split(/\r?\n/);
  const pattern = new RegExp(`\\b(const|let|var)\\s+(\\{[^}]*\\b)?${escape(name)}\\b`);
  const index = lines.findIndex((l) => pattern.test(l));
  return index < 0 ? null : { number: index + 1, text: lines[index].trim() };
}

module.exports = { findCallLines, hotspotAt, findDeclaration };
