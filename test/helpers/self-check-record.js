'use strict';
// Where each lab's line for the end-of-run summary is kept between the test
// files (each runs in its own Jest sandbox) and the reporter that prints it.

const fs = require('node:fs');
const path = require('node:path');
const { WORK_DIR } = require('../../scripts/lib/shipped');

const DIR = path.join(WORK_DIR, 'self-check');

/**
 * @param {object} lab
 * @param {{state:string, why?:string, checkProven?:boolean}} line `checkProven`: false when this
 *   run did not measure the lab's reference and starter (a lab not started, in a plain `npm test`)
 */
function recordSelfCheck(lab, { state, why, checkProven = true }) {
  fs.mkdirSync(DIR, { recursive: true });
  fs.writeFileSync(path.join(DIR, `${lab.slug}.json`), JSON.stringify({ lab: lab.slug, id: lab.id, title: lab.title, state, why, checkProven, at: Date.now() }));
}

/** The lines recorded since `since` (ms), in lab order. */
function readSelfChecks(since) {
  if (!fs.existsSync(DIR)) return [];
  return fs
    .readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(fs.readFileSync(path.join(DIR, f), 'utf8')))
    .filter((r) => r.at >= since)
    .sort((a, b) => a.lab.localeCompare(b.lab));
}

module.exports = { recordSelfCheck, readSelfChecks, DIR };
