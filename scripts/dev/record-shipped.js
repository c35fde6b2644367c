'use strict';
// For workbook maintainers: after changing a starter, record the blob ids of
// every lab's files (all but README.md) in scripts/lib/shipped-starters.json,
// then commit both together. test/shipped.test.js checks they agree.

const fs = require('node:fs');
const path = require('node:path');
const { labs } = require('../lib/labs');
const { MANIFEST, blobId } = require('../lib/shipped');

function filesUnder(dir, base = dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full, base);
    return [path.relative(base, full).split(path.sep).join('/')];
  });
}

const manifest = {};
for (const lab of labs) {
  manifest[lab.slug] = {};
  for (const file of filesUnder(lab.dir).filter((f) => f !== 'README.md').sort()) {
    manifest[lab.slug][file] = blobId(fs.readFileSync(path.join(lab.dir, file), 'utf8'));
  }
}
fs.writeFileSync(MANIFEST, JSON.stringify(manifest, null, 2) + '\n');
console.log(`Recorded ${Object.values(manifest).reduce((n, f) => n + Object.keys(f).length, 0)} shipped files in ${path.relative(process.cwd(), MANIFEST)}.`);
