'use strict';
// Putting a lab back as shipped without ever losing the learner's work.

const fs = require('node:fs');
const path = require('node:path');
const { WORK_DIR, labFiles, isShipped, shippedContent } = require('./shipped');

const BACKUP_ROOT = path.join(WORK_DIR, 'backups');

/**
 * Copies the learner's version of `files` (relative to the lab folder; those
 * that exist) to a new timestamped folder under `backupRoot`.
 * @returns {string|null} the folder, or null when there was nothing to copy
 */
function backUp(lab, files, { backupRoot = BACKUP_ROOT } = {}) {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const backupDir = path.join(backupRoot, `${lab.slug}-${stamp}`);
  for (const file of files) {
    const current = path.join(lab.dir, file);
    if (!fs.existsSync(current)) continue;
    const backup = path.join(backupDir, file);
    fs.mkdirSync(path.dirname(backup), { recursive: true });
    fs.copyFileSync(current, backup);
  }
  return fs.existsSync(backupDir) ? backupDir : null;
}

/**
 * Restores every changed file of `lab` to its shipped content, after copying
 * the learner's version to a timestamped folder under `backupRoot`.
 * @returns {{restored:string[], backupDir:string|null}|{error:string}}
 *   on error nothing has been written.
 */
function resetLab(lab, { backupRoot = BACKUP_ROOT } = {}) {
  const changed = labFiles(lab).filter((file) => !isShipped(lab, file));
  if (changed.length === 0) return { restored: [], backupDir: null };
  // Recover everything first, so a failure leaves the learner's files untouched.
  const recovered = changed.map((file) => ({ file, ...shippedContent(lab, file) }));
  const missing = recovered.find((r) => r.error);
  if (missing) return { error: missing.error };

  const backupDir = backUp(lab, changed, { backupRoot });
  // Only once every backup is safely written, overwrite.
  for (const { file, content } of recovered) {
    const current = path.join(lab.dir, file);
    fs.mkdirSync(path.dirname(current), { recursive: true });
    fs.writeFileSync(current, content);
  }
  return { restored: recovered.map((r) => path.join(lab.dir, r.file)), backupDir };
}

module.exports = { resetLab, backUp };
