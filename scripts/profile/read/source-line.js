'use strict';
// From "function F (defined at line L) spends its time in callee C" to the
// line of F that calls C: the bridge from a profile to the line to fix.
// Profiles record where functions start, not where calls happen, so this
// reads F's own source.

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
 * @param {string} file the app's source file
 * @param {number} startLine where the calling function starts (1-based)
 * @param {object} callee
 * @param {string} [callee.name] the called function's name, e.g. 'pbkdf2Sync'
 * @param {string} [callee.package] the npm package it lives in, e.g. 'handlebars'
 * @returns {{line:number, text:string, exact:boolean}} the calling line, or the
 *   function's first line when no call can be recognised (exact: false)
 */
function findCallLine(file, startLine, { name, package: pkg } = {}) {
  const lines = fs.readFileSync(file, 'utf8').split(/\r?\n/);
  const body = functionBody(lines, startLine);
  const patterns = [];
  if (name && /^[\w$]+$/.test(name)) patterns.push(new RegExp(`(^|[^\\w$])${escape(name)}\\s*\\(`));
  if (pkg) {
    const id = pkg.replace(/^@[^/]+\//, '').replace(/[^\w$]/g, '');
    patterns.push(new RegExp(`(^|[^\\w$])${escape(id)}\\s*[.(]`));
  }
  for (const pattern of patterns) {
    // Skip the function's own header line when it is the callee's definition.
    const hit = body.find(({ text }, i) => (i > 0 || !/function|=>/.test(text)) && pattern.test(text));
    if (hit) return { line: hit.number, text: hit.text.trim(), exact: true };
  }
  return { line: startLine, text: (lines[startLine - 1] || '').trim(), exact: false };
}

/**
 * A hot spot as describeHotspot reads it: `fields` (sharePct, callee,
 * calleeOrigin, caller), then where in `appFile` the call is, found with
 * findCallLine from the calling function's `startLine` and `callee`.
 */
function hotspotAt(appFile, startLine, callee, fields) {
  const { line, text, exact } = findCallLine(appFile, startLine, callee);
  return { ...fields, file: relative(appFile), line, text, exact };
}

module.exports = { findCallLine, hotspotAt };
