'use strict';
// The site's one door into the workbook repository. Everything the site
// shows about a lab is read through here at build time, from the same
// modules the CLI uses, so the site never holds a copy of lab content.

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..', '..');
const { labs, checkOf, marginsOf, METADATA } = require(path.join(ROOT, 'scripts', 'lib', 'labs.js'));
const { shippedContent, labFiles } = require(path.join(ROOT, 'scripts', 'lib', 'shipped.js'));
// The standard sections of a walkthrough, as the docs tests know them.
const { SECTIONS } = require(path.join(ROOT, 'scripts', 'lib', 'walkthrough.js'));

/** Repository-relative path with forward slashes, e.g. "solutions/<slug>/app.js". */
function repoPath(absolute) {
  return path.relative(ROOT, absolute).split(path.sep).join('/');
}

/** The lab whose folder (under labs/ or solutions/) holds `relPath`, with the rest of the path. */
function labOf(relPath) {
  const [top, slug, ...rest] = relPath.split('/');
  const lab = labs.find((l) => l.slug === slug);
  if (!lab || (top !== 'labs' && top !== 'solutions')) return null;
  return { lab, top, file: rest.join('/') };
}

/**
 * The content of a repository file as the walkthrough should show it. Files
 * under labs/ are the learner's to edit, so they come from the shipped
 * starter (recovered from git): a learner's work must never leak into the
 * site. Everything else is read from disk.
 * @returns {string}
 * @throws {Error} one sentence saying which file and why
 */
function readRepoFile(relPath) {
  const owner = labOf(relPath);
  if (owner && owner.top === 'labs' && labFiles(owner.lab).includes(owner.file)) {
    const got = shippedContent(owner.lab, owner.file);
    if (got.error) throw new Error(`Cannot show ${relPath}: ${got.error}.`);
    return normalise(got.content);
  }
  const absolute = path.join(ROOT, ...relPath.split('/'));
  if (!absolute.startsWith(ROOT + path.sep) || !isFile(absolute)) {
    throw new Error(`Cannot show ${relPath}: there is no such file in the workbook.`);
  }
  return normalise(fs.readFileSync(absolute, 'utf8'));
}

/** Whether the lab's walkthrough (its README) is written yet: only then does it have a page. */
function hasWalkthrough(lab) {
  return isFile(lab.readme);
}

function isFile(file) {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Windows checkouts may have CRLF line endings; the site shows LF. */
function normalise(text) {
  return text.replace(/\r\n/g, '\n');
}

module.exports = { ROOT, METADATA, labs, labFiles, SECTIONS, repoPath, readRepoFile, isFile, hasWalkthrough, checkOf, marginsOf };
