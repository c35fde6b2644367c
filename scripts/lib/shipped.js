'use strict';
// The shipped starters: the lab files exactly as the workbook ships them,
// before the learner edits them. They are recovered from git by blob id
// (recorded in shipped-starters.json), so they survive the learner's own
// edits and commits without the repository keeping a second copy.

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { ROOT } = require('./labs');

const MANIFEST = path.join(__dirname, 'shipped-starters.json');
const WORK_DIR = path.join(ROOT, '.workbook');

function manifest() {
  return JSON.parse(fs.readFileSync(MANIFEST, 'utf8'));
}

/** Git's blob id of some content, with Windows line endings normalised. */
function blobId(content) {
  const body = Buffer.from(String(content).replace(/\r\n/g, '\n'), 'utf8');
  return crypto
    .createHash('sha1')
    .update(`blob ${body.length}\0`)
    .update(body)
    .digest('hex');
}

/** Git's blob id of `file` (relative to the lab folder) as shipped, or undefined. */
function shippedBlobId(lab, file = 'app.js') {
  return (manifest()[lab.slug] || {})[file];
}

/** The files of a lab the learner may edit: everything but the walkthrough. */
function labFiles(lab) {
  return Object.keys(manifest()[lab.slug] || {});
}

/** Is the learner's copy of `file` (relative to the lab folder) still as shipped? */
function isShipped(lab, file = 'app.js') {
  const id = shippedBlobId(lab, file);
  const full = path.join(lab.dir, file);
  return Boolean(id) && fs.existsSync(full) && blobId(fs.readFileSync(full, 'utf8')) === id;
}

/**
 * The shipped content of one lab file.
 * @returns {{content:string}|{error:string}}
 */
function shippedContent(lab, file = 'app.js') {
  const id = shippedBlobId(lab, file);
  if (!id) return { error: `the workbook records no shipped version of ${lab.slug}/${file}` };
  const full = path.join(lab.dir, file);
  // Cheapest first: the learner has not touched the file.
  if (fs.existsSync(full)) {
    const current = fs.readFileSync(full, 'utf8');
    if (blobId(current) === id) return { content: current };
  }
  try {
    const content = execFileSync('git', ['cat-file', 'blob', id], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
    return { content };
  } catch (err) {
    const why = err.code === 'ENOENT' ? 'git is not installed' : 'this folder is not a git clone of the workbook, or its history is incomplete';
    return { error: `the shipped ${lab.slug}/${file} could not be recovered from git (${why})` };
  }
}

/**
 * Writes the shipped lab files to .workbook/shipped/<slug>/ and returns the
 * path of its app.js (inside the repository, so `require('express')` resolves).
 * @returns {{app:string}|{error:string}}
 */
function materializeShipped(lab) {
  const dir = path.join(WORK_DIR, 'shipped', lab.slug);
  for (const file of labFiles(lab)) {
    const got = shippedContent(lab, file);
    if (got.error) return { error: got.error };
    const target = path.join(dir, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, got.content);
  }
  return { app: path.join(dir, 'app.js') };
}

module.exports = { MANIFEST, WORK_DIR, manifest, blobId, shippedBlobId, labFiles, isShipped, shippedContent, materializeShipped };
