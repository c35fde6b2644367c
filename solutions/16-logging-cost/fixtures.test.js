'use strict';
// Lab 16's check against fixtures: other real fixes must pass, "fixes" that
// drop part of the work must fail. TODO: add both kinds in fixtures/.

const path = require('node:path');
const { findLab } = require('../../scripts/lib/labs');
const { describeFixtures } = require('../../test/helpers/lab-verdicts');

const lab = findLab(path.basename(__dirname));

describe(`lab ${lab.id} · fixtures`, () => {
  describeFixtures(lab, { otherFixes: [], cheats: [] });
});
