'use strict';
// Counts the calls an app makes to one function of a module it requires: a
// lab's check declares it (`countCalls: 'pricing.js#priceQuote'`), and the
// probe installs the counter in every thread and Node process of the app,
// in every mode (`workbook run`, `load`, `profile`, a check), so the app
// sees the same function whoever started it. Lab 05 counts the quotes its
// cache answers without calling the pricing model this way: exactly, where
// timing each request could only tell a hit from a pricing most of the
// time.
//
// How: when a CommonJS module whose file is named as declared has been
// compiled, the declared export is replaced on its exports object by a
// function that counts, then calls the original with the same `this` and
// arguments. Everything that requires the module afterwards gets the
// counting function, whether it keeps the exports object or destructures
// it. A module loaded through `import` from an ES module is not counted
// (the lab apps are CommonJS).

const path = require('node:path');
const Module = require('node:module');

// The environment variable that carries a check's declaration to the probe
// (hidden from the app with the other WORKBOOK_* variables: hidden-env.js).
const CALLS_ENV = 'WORKBOOK_COUNT_CALLS';

const apply = Reflect.apply;
const defineProperty = Object.defineProperty;

/**
 * Parses a declaration "file#name" (e.g. "pricing.js#priceQuote").
 * @returns {{file:string, name:string}|null}
 */
function parseSpec(spec) {
  const match = /^([^#/\\]+)#([A-Za-z_$][\w$]*)$/.exec(spec || '');
  return match ? { file: match[1], name: match[2] } : null;
}

/**
 * Wraps `fn` so that each call adds one to `counter.calls`; the wrapper has
 * the original's name and length. (A CPU profile or a flame graph shows it
 * as a frame of its own, `countedByWorkbook`, between the caller and `fn`:
 * the name says whose it is.)
 */
function counting(fn, counter) {
  const countedByWorkbook = function (...args) {
    counter.calls++;
    return apply(fn, this, args);
  };
  defineProperty(countedByWorkbook, 'name', { value: fn.name });
  defineProperty(countedByWorkbook, 'length', { value: fn.length });
  return countedByWorkbook;
}

/**
 * Replaces `exports[name]` by a counting wrapper when it is a function and
 * can be replaced; says whether it did.
 */
function wrapExport(exports, name, counter) {
  if (!exports || (typeof exports !== 'object' && typeof exports !== 'function')) return false;
  const fn = exports[name];
  if (typeof fn !== 'function' || counter.wrapped.has(fn)) return false;
  const wrapper = counting(fn, counter);
  try {
    exports[name] = wrapper;
  } catch {
    return false; // a frozen exports object: left as it is
  }
  if (exports[name] !== wrapper) return false;
  counter.wrapped.add(wrapper);
  return true;
}

/**
 * Counts, from now on, the calls this thread makes to the declared export.
 * @param {string} spec "file#name"
 * @param {{target?: object}} [options] the object whose `_compile` to wrap (Module.prototype; tests pass their own)
 * @returns {{count: () => number}|null} null when the declaration is not "file#name"
 */
function countCalls(spec, { target = Module.prototype } = {}) {
  const wanted = parseSpec(spec);
  if (!wanted) return null;
  const counter = { calls: 0, wrapped: new WeakSet() };
  const compile = target._compile;
  // _compile runs the module's code: once it returns, module.exports is
  // what the module exported. Its arguments differ between Node versions,
  // so they are passed on as they come.
  target._compile = function (...args) {
    const result = apply(compile, this, args);
    if (typeof this.filename === 'string' && path.basename(this.filename) === wanted.file) wrapExport(this.exports, wanted.name, counter);
    return result;
  };
  return { count: () => counter.calls };
}

module.exports = { countCalls, parseSpec, wrapExport, CALLS_ENV };
