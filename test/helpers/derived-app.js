'use strict';
// Fixture apps made from a real app by small text patches, so a fixture is a
// few lines that say what it changes, and breaks loudly when the app it is
// derived from changes under it.

const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('../../scripts/lib/labs');

/**
 * Writes `base` with each [from, to] replaced once to .workbook/derived/<name>.js
 * (two levels below the root, like labs/<lab>/app.js, so relative paths in
 * the app still resolve) and returns its path.
 */
function derivedApp(name, base, patches) {
  let source = fs.readFileSync(base, 'utf8');
  for (const [from, to] of patches) {
    if (!source.includes(from)) throw new Error(`fixture ${name}: "${from.slice(0, 60)}…" is no longer in ${path.relative(ROOT, base)}`);
    source = source.replace(from, () => to); // as written: a "$'" in `to` is not a replacement pattern
  }
  const file = path.join(ROOT, '.workbook', 'derived', `${name}.js`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, source);
  return file;
}

module.exports = { derivedApp };
