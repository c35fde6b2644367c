'use strict';
// The one list of labs. Every command, check, test and page finds a lab and
// its files through here. A lab is one unit:
//   labs/labs.json              its entry: slug, title, minutes, what it teaches
//   labs/<slug>/                the starter the learner edits, and its README
//   labs/<slug>/check/          its check (index.js), measured margins, verdict test
//   solutions/<slug>/           the reference fix, and fixtures (other fixes, cheats)
// Shared code reads these and never names a lab.

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const LABS_DIR = path.join(ROOT, 'labs');
const METADATA = path.join(LABS_DIR, 'labs.json');

/** Where each file of a lab lives, from its metadata entry. */
function describe(entry, root = ROOT) {
  const dir = path.join(root, 'labs', entry.slug);
  const solutionDir = path.join(root, 'solutions', entry.slug);
  const checkDir = path.join(dir, 'check');
  return {
    ...entry,
    number: Number(entry.slug.slice(0, 2)),
    id: entry.slug.slice(0, 2),
    dir,
    app: path.join(dir, 'app.js'),
    readme: path.join(dir, 'README.md'),
    solutionDir,
    solutionApp: path.join(solutionDir, 'app.js'),
    checkDir,
    checkModule: path.join(checkDir, 'index.js'),
    marginsFile: path.join(checkDir, 'margins.json'),
    testFile: path.join(checkDir, 'verdicts.test.js'),
    fixturesTest: path.join(solutionDir, 'fixtures.test.js'),
  };
}

/** The labs of the workbook at `root`, in order. */
function readLabs(root = ROOT) {
  const entries = JSON.parse(fs.readFileSync(path.join(root, 'labs', 'labs.json'), 'utf8'));
  return entries.map((entry) => describe(entry, root));
}

const all = readLabs();

/**
 * Finds a lab by its number (`1` or `01`), its folder name (`01-some-name`) or that name without the number.
 * @returns the lab, or undefined
 */
function findLab(id, list = all) {
  const key = String(id ?? '').trim().toLowerCase();
  if (/^\d+$/.test(key)) return list.find((lab) => lab.number === Number(key));
  return list.find((lab) => lab.slug === key || lab.slug.slice(3) === key);
}

/** A one-line hint listing the valid lab ids, for usage errors. */
function labIdsHint() {
  return all.map((lab) => `${lab.id} (${lab.slug})`).join(', ');
}

/** Path relative to the repository root, with forward slashes, for display. */
function relative(file) {
  const rel = path.relative(ROOT, file);
  return rel.startsWith('..') || path.isAbsolute(rel) ? file : rel.split(path.sep).join('/');
}

/** The lab's check definition (labs/<slug>/check/index.js). */
function checkOf(lab) {
  return require(lab.checkModule);
}

/** The margins measured for the lab's gates by `npm run bench -- --write`, or null. */
function marginsOf(lab) {
  try {
    return JSON.parse(fs.readFileSync(lab.marginsFile, 'utf8'));
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw new Error(`${relative(lab.marginsFile)} is not valid JSON: ${err.message}`);
  }
}

module.exports = { ROOT, LABS_DIR, METADATA, labs: all, readLabs, describe, findLab, labIdsHint, relative, checkOf, marginsOf };
