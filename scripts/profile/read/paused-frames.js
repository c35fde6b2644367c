'use strict';
// Reads what the inspector says when it pauses a process (the
// Debugger.paused event of the Chrome DevTools Protocol): the call stack,
// as `bt` in `node inspect` prints it, and the local variables of a frame,
// as DevTools' Scope pane shows them, in a line each.

const path = require('node:path');
const { fileURLToPath } = require('node:url');

/** A script's URL (file:///…, node:…, or a path) as a path relative to `root` where it is a file. */
function displayUrl(url, root) {
  if (!url) return '(unknown script)';
  let file = url;
  if (url.startsWith('file://')) {
    try {
      file = fileURLToPath(url);
    } catch {
      return url;
    }
  }
  if (!path.isAbsolute(file)) return url;
  const rel = path.relative(root, file);
  return rel.startsWith('..') || path.isAbsolute(rel) ? file : rel.split(path.sep).join('/');
}

/**
 * The frames of a pause, top first: { name, url, file (absolute or null), line, column } (1-based).
 * @param {object[]} callFrames Debugger.paused's callFrames
 * @param {Map<string,string>} scripts scriptId → url, from Debugger.scriptParsed
 */
function framesOf(callFrames, scripts) {
  return callFrames.map((f) => {
    const url = f.url || scripts.get(f.location.scriptId) || '';
    let file = null;
    if (url.startsWith('file://')) {
      try {
        file = fileURLToPath(url);
      } catch {
        file = null;
      }
    } else if (path.isAbsolute(url)) file = url;
    return { name: f.functionName || '(anonymous)', url, file, scriptId: f.location.scriptId, line: f.location.lineNumber + 1, column: (f.location.columnNumber ?? 0) + 1, callFrameId: f.callFrameId, scopeChain: f.scopeChain };
  });
}

/** `#0 readAll labs/…/app.js:31:5`, as node inspect's bt prints a frame. */
function frameLine(frame, i, root) {
  return `#${i} ${frame.name} ${displayUrl(frame.url, root)}:${frame.line}:${frame.column}`;
}

// Milliseconds since 1970 that fall between 2000 and 2100 are very likely times.
const TIME_FROM = Date.UTC(2000, 0, 1);
const TIME_TO = Date.UTC(2100, 0, 1);

/** One value of Runtime.getProperties as a short string (DevTools' preview, flattened). */
function valueText(v) {
  if (!v) return 'undefined';
  switch (v.type) {
    case 'undefined':
      return 'undefined';
    case 'number': {
      const n = v.value ?? Number(v.unserializableValue ?? v.description);
      return Number.isInteger(n) && n >= TIME_FROM && n < TIME_TO ? `${n} (${new Date(n).toISOString()}, if it is a time in ms)` : String(v.description ?? n);
    }
    case 'string':
      return JSON.stringify(v.value.length > 60 ? `${v.value.slice(0, 59)}…` : v.value);
    case 'boolean':
      return String(v.value);
    case 'function':
      return `function ${(v.description || '').match(/^(?:async\s+)?function\s*\*?\s*([\w$]*)/)?.[1] || ''}`.trim();
    case 'object':
      if (v.subtype === 'null') return 'null';
      return objectText(v);
    default:
      return v.description || v.type;
  }
}

function objectText(v) {
  const preview = v.preview;
  if (!preview || !['object', 'array'].includes(preview.type)) return v.description || 'Object';
  if (v.subtype === 'array' || v.subtype === 'typedarray' || v.subtype === 'set' || v.subtype === 'map') return v.description;
  // A plain object: its first few properties, as DevTools previews it.
  const props = (preview.properties || []).slice(0, 4).map((p) => `${p.name}: ${p.type === 'string' ? JSON.stringify(p.value) : p.value}`);
  return `{ ${props.join(', ')}${preview.overflow || (preview.properties || []).length > 4 ? ', …' : ''} }`;
}

/** Variables from Runtime.getProperties' result, as [name, text] pairs, in declaration order. */
function localsOf(result) {
  return (result.result || [])
    .filter((p) => p.value !== undefined || p.get === undefined)
    .map((p) => [p.name, valueText(p.value)]);
}

/**
 * The scopes of a frame that hold its own variables: the innermost block
 * scopes (a loop's body, a function body whose parameters are destructured)
 * and the function's local scope, innermost first; not its closures.
 */
function ownScopes(frame) {
  const own = [];
  for (const scope of frame.scopeChain || []) {
    if (!['block', 'local', 'catch'].includes(scope.type)) break;
    own.push(scope);
  }
  return own;
}

/**
 * The locals of two pauses of the same frame, side by side, each marked
 * unchanged or changed: a loop whose state reads the same twice, some time
 * apart, is going round without moving.
 */
function compareLocals(first, second) {
  const later = new Map(second);
  return first.map(([name, text]) => ({ name, first: text, second: later.has(name) ? later.get(name) : '(gone)', same: later.get(name) === text }));
}

module.exports = { framesOf, frameLine, valueText, localsOf, ownScopes, compareLocals, displayUrl };
