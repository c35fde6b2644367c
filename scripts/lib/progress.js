'use strict';
// The learner's record: the last and best result of each lab's check. One
// small git-ignored file; deleting it loses nothing but this record.

const fs = require('node:fs');
const path = require('node:path');
const { labs, checkOf } = require('./labs');
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

// How many app versions per lab keep their last verdict (so that a file put
// back as it was when it passed reads as passing again).
const VERSIONS_KEPT = 20;

/**
 * The gate that best summarises a result. After a fail, the gate furthest
 * past its threshold: what to work on. After a pass, the lesson's own gate
 * (one the shipped starter fails, `starterFails` of the lab's check), the
 * one nearest its threshold if there are several: a pass is told by the
 * figure the lab is about, not by a side gate that merely stayed fine.
 */
function headline(result, lessonGates = []) {
  if (!result.gates.length) return null;
  const failing = result.gates.filter((g) => !g.pass);
  const lesson = result.gates.filter((g) => lessonGates.includes(g.id));
  const pool = failing.length ? failing : lesson.length ? lesson : result.gates;
  const pick = [...pool].sort((a, b) => (a.pass ? a.margin - b.margin : b.margin - a.margin))[0];
  return { id: pick.id, label: pick.label, value: pick.value, unit: pick.unit, pass: pick.pass, margin: pick.margin };
}

function lessonGatesOf(lab) {
  try {
    return checkOf(lab).starterFails;
  } catch {
    return [];
  }
}

/** How good a summary is, for keeping the best: its verdict, then how far inside (or past) its headline gate landed. */
function standing(summary) {
  const h = summary.headline;
  const margin = !h || !Number.isFinite(h.margin) ? 1 : h.pass ? h.margin : 1 / h.margin;
  return [rank(summary), margin];
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
    headline: headline(result, lessonGatesOf(lab)),
    gates: Object.fromEntries(result.gates.map((g) => [g.id, g.value])),
  };
  entry.last = summary;
  const [rankNow, marginNow] = standing(summary);
  const [rankBest, marginBest] = entry.best ? standing(entry.best) : [-1, 0];
  if (rankNow > rankBest || (rankNow === rankBest && marginNow > marginBest)) entry.best = summary;
  // The last verdict of each version of the file, newest last.
  if (appHash) {
    const versions = (entry.versions || []).filter((v) => v.appHash !== appHash);
    versions.push({ appHash, verdict: result.verdict, at: result.startedAt });
    entry.versions = versions.slice(-VERSIONS_KEPT);
  }
  if (result.verdict === 'pass' && !entry.firstPassAt) entry.firstPassAt = result.startedAt;
  data.labs[lab.slug] = entry;
  save(data);
}

function rank(summary) {
  return summary.verdict === 'pass' ? 2 : summary.verdict === 'fail' ? 1 : 0;
}

/**
 * not-started  the app is the shipped starter (as shipped, or put back
 *              since: the record keeps the lab's earlier results)
 * passing      the last check of the app exactly as it is now passed (a
 *              file put back as it was when it passed passes again)
 * in-progress  anything else
 */
function stateOf(lab) {
  const entry = load().labs[lab.slug] || null;
  const current = fs.existsSync(lab.app) ? blobId(fs.readFileSync(lab.app, 'utf8')) : null;
  if (current !== null && current === shippedBlobId(lab)) return { state: 'not-started', entry };
  const sameFile = (entry?.versions || []).find((v) => v.appHash === current);
  const verdict = sameFile ? sameFile.verdict : entry?.last?.appHash === current ? entry.last.verdict : null;
  if (current !== null && verdict === 'pass') return { state: 'passing', entry };
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
