'use strict';
// For workbook maintainers: after changing a starter, record the blob ids of
// every lab's files (all but README.md and the check/ folder, which are the
// workbook's, not the learner's) in scripts/lib/shipped-starters.json,
// then commit both together. test/shipped.test.js checks they agree.

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { labs, ROOT } = require('../lib/labs');
const { MANIFEST, blobId } = require('../lib/shipped');

/** The lab's files as git sees them: tracked or new, never ignored (profiler logs and the like). */
function filesUnder(dir) {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', dir], { cwd: ROOT, encoding: 'utf8' });
  return listed
    .split('\n')
    .filter(Boolean)
    .map((file) => path.relative(dir, path.join(ROOT, file)).split(path.sep).join('/'))
    .filter((file) => fs.existsSync(path.join(dir, file)));
}

const manifest = {};
for (const lab of labs) {
  manifest[lab.slug] = {};
  for (const file of filesUnder(lab.dir).filter((f) => f !== 'README.md' && !f.startsWith('check/')).sort()) {
    manifest[lab.slug][file] = blobId(fs.readFileSync(path.join(lab.dir, file), 'utf8'));
  }
}
fs.writeFileSync(MANIFEST, JSON.stringify(manifest, null, 2) + '\n');
console.log(`Recorded ${Object.values(manifest).reduce((n, f) => n + Object.keys(f).length, 0)} shipped files in ${path.relative(process.cwd(), MANIFEST)}.`);
