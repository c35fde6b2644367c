'use strict';
// A copy of the workbook with one more lab, 90-quick-check
// (test/fixtures/quick-lab/): a real lab whose real check takes about a
// second, for tests of what surrounds a check (`watch`, `check --json`)
// that would otherwise repeat a real lab's five to ten seconds of measuring
// (each real lab's check is proven by its own verdict suite).

const fs = require('node:fs');
const path = require('node:path');
const { copyWorkbook, removeCopy } = require('./workbook-copy');

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'quick-lab');
const SLUG = '90-quick-check';

/** @returns {{root:string, id:string, script:string, starter:string, solution:string, remove:() => void}} */
function workbookWithQuickLab() {
  const root = copyWorkbook();
  const labDir = path.join(root, 'labs', SLUG);
  const solutionDir = path.join(root, 'solutions', SLUG);
  fs.mkdirSync(path.join(labDir, 'check'), { recursive: true });
  fs.mkdirSync(solutionDir, { recursive: true });
  const from = (file) => path.join(FIXTURE, file);
  fs.copyFileSync(from('starter.js'), path.join(labDir, 'app.js'));
  fs.copyFileSync(from('spin.js'), path.join(labDir, 'spin.js'));
  fs.copyFileSync(from('README.md'), path.join(labDir, 'README.md'));
  fs.copyFileSync(from('check/index.js'), path.join(labDir, 'check', 'index.js'));
  fs.copyFileSync(from('solution.js'), path.join(solutionDir, 'app.js'));
  fs.copyFileSync(from('spin.js'), path.join(solutionDir, 'spin.js'));
  const metadata = path.join(root, 'labs', 'labs.json');
  const entries = JSON.parse(fs.readFileSync(metadata, 'utf8'));
  entries.push({ slug: SLUG, title: 'A quick check, for the tests', minutes: 5, teaches: 'nothing: it is for tests' });
  fs.writeFileSync(metadata, JSON.stringify(entries, null, 2));
  return {
    root,
    id: '90',
    script: path.join(root, 'scripts', 'workbook.js'),
    starter: fs.readFileSync(from('starter.js'), 'utf8'),
    solution: fs.readFileSync(from('solution.js'), 'utf8'),
    remove: () => removeCopy(root),
  };
}

module.exports = { workbookWithQuickLab };
