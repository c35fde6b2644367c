'use strict';
// A copy of the workbook's own files (not its installs) in a temporary folder,
// for tests that change the workbook itself (scaffold a lab, break a file,
// add a lab) without touching the real one.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT } = require('../../scripts/lib/labs');

// What a copy leaves out: installs, history, generated output.
const SKIP = new Set(['node_modules', '.git', '.workbook', 'build', '.docusaurus', 'profiles', 'bench-results']);

/** @returns {string} the copy's root; its node_modules is a link to the workbook's */
function copyWorkbook() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-copy-'));
  fs.cpSync(ROOT, dir, { recursive: true, filter: (src) => !SKIP.has(path.basename(src)) });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'junction');
  return dir;
}

function removeCopy(dir) {
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}

module.exports = { SKIP, copyWorkbook, removeCopy };
