'use strict';
// The learner's record: the last and best result of each lab's check. One
// small git-ignored file; deleting it loses nothing but this record.

const fs = require('node:fs');
const path = require('node:path');
const { labs } = require('./labs');
const { WORK_DIR, blobId, shippedBlobId } = require('./shipped');

// WORKBOOK_PROGRESS_FILE: the workbook's own tests keep their records apart
// from the learner's.
const FILE = process.env.WORKBOOK_PROGRESS_FILE || path.join(WORK_DIR, 'progress.json');

function load() {
  try {
    return JSON.parse(fs.readFileSync(FILE, 'utf8'));
  } catch {
    return { labs: {} };
  }
}

function save(data) {
  fs.mkdirSync(path.dirname(FILE), { recursive: true });
  const temp = `${FILE}.${process.pid}.tmp`;
  fs.writeFileSync(temp, JSON.stringify(data, null, 2) + '\n');
  fs.renameSync(temp, FILE); // never leave a half-written record
}

/** The gate that best summarises a result: the one furthest from passing. */
function headline(result) {
  if (!result.gates.length) return null;
  const worst = [...result.gates].sort((a, b) => (a.pass === b.pass ? a.margin - b.margin : a.pass ? 1 : -1))[0];
  return { id: worst.id, label: worst.label, value: worst.value, unit: worst.unit, pass: worst.pass, margin: worst.margin };
}

/**
 * Records a check of `app` if it is the learner's own labs/<lab>/app.js:
 * checks of other files (--app, the solution) are not progress.
 */
function recordCheck(lab, result, { app }) {
  if (app !== lab.app || result.verdict === 'error') return;
  const data = load();
  const entry = data.labs[lab.slug] || {};
  const appHash = fs.existsSync(lab.app) ? blobId(fs.readFileSync(lab.app, 'utf8')) : null;
  const summary = {
    verdict: result.verdict,
    at: result.startedAt,
    appHash,
    headline: headline(result),
    gates: Object.fromEntries(result.gates.map((g) => [g.id, g.value])),
  };
  entry.last = summary;
  const better = !entry.best || rank(summary) > rank(entry.best) ||
    (rank(summary) === rank(entry.best) && (summary.headline?.margin ?? 0) > (entry.best.headline?.margin ?? 0));
  if (better) entry.best = summary;
  if (result.verdict === 'pass' && !entry.firstPassAt) entry.firstPassAt = result.startedAt;
  data.labs[lab.slug] = entry;
  save(data);
}

function rank(summary) {
  return summary.verdict === 'pass' ? 2 : summary.verdict === 'fail' ? 1 : 0;
}

/**
 * not-started  the app is still the shipped starter and no check was recorded
 * passing      the last check passed and the app has not changed since
 * in-progress  anything else
 */
function stateOf(lab) {
  const entry = load().labs[lab.slug];
  const current = fs.existsSync(lab.app) ? blobId(fs.readFileSync(lab.app, 'utf8')) : null;
  if (entry?.last?.verdict === 'pass' && entry.last.appHash === current) return { state: 'passing', entry };
  if (!entry?.last && current !== null && current === shippedBlobId(lab)) return { state: 'not-started', entry: entry || null };
  return { state: 'in-progress', entry };
}

/** The labs the learner has not passed (or whose app changed since it passed), in order. */
function unfinishedLabs() {
  return labs.filter((lab) => stateOf(lab).state !== 'passing');
}

/** The first lab the learner has not passed, or null when every lab passes. */
function nextLab() {
  return unfinishedLabs()[0] || null;
}

/** How many of a lab's hints the learner has seen. */
function hintsSeen(lab) {
  return load().labs[lab.slug]?.hintsSeen || 0;
}

function recordHintSeen(lab, count) {
  const data = load();
  const entry = data.labs[lab.slug] || {};
  entry.hintsSeen = Math.max(entry.hintsSeen || 0, count);
  data.labs[lab.slug] = entry;
  save(data);
}

module.exports = { FILE, load, recordCheck, stateOf, unfinishedLabs, nextLab, hintsSeen, recordHintSeen };
