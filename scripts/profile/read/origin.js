'use strict';
// Which code a profiled frame belongs to: the learner's app, an npm package,
// Node itself, or the engine. Profilers give URLs or paths; learners think in
// "my code / Express / Node".

const path = require('node:path');
const { fileURLToPath } = require('node:url');

function toPath(url) {
  if (!url) return '';
  if (url.startsWith('file://')) {
    try {
      return fileURLToPath(url);
    } catch {
      return url;
    }
  }
  return url;
}

/** @returns {{kind:'app'|'package'|'node'|'engine', label:string}} */
function originOf(url, appFile) {
  const file = toPath(url);
  if (!file) return { kind: 'engine', label: 'V8 and native code' };
  if (appFile && path.resolve(file) === path.resolve(appFile)) return { kind: 'app', label: 'your app' };
  if (file.startsWith('node:') || !path.isAbsolute(file)) return { kind: 'node', label: 'Node.js itself' };
  const m = /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file);
  if (m) return { kind: 'package', label: m[1].replace(/\\/g, '/'), package: m[1].replace(/\\/g, '/') };
  return { kind: 'other', label: 'other files' };
}

module.exports = { originOf, toPath };
