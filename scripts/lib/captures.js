'use strict';
// The recorded captures of each lab (site/static/captures/index.json, written
// by `npm run capture`): the machine they came from, the check results of the
// shipped starter and the solution, and the tool outputs' files.

const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('./labs');

const INDEX = path.join(ROOT, 'site', 'static', 'captures', 'index.json');

/** The whole index, `{ labs: { [slug]: { machine, results, files } } }`; empty when nothing is recorded. */
function readCapturesIndex() {
  return fs.existsSync(INDEX) ? JSON.parse(fs.readFileSync(INDEX, 'utf8')) : { labs: {} };
}

/** One lab's captured check results, `{ starter, solution }`, or null when none are recorded. */
function capturedResults(lab) {
  return readCapturesIndex().labs[lab.slug]?.results ?? null;
}

module.exports = { CAPTURES_INDEX: INDEX, readCapturesIndex, capturedResults };
