'use strict';
// The labs sidebar, in the order of scripts/lib/labs.js (the one list of
// labs). A lab whose walkthrough is not written yet is left out rather than
// breaking the build.

const fs = require('node:fs');
const { labs } = require('./plugins/workbook/repo');

module.exports = {
  labs: labs
    .filter((lab) => fs.existsSync(lab.readme))
    .map((lab) => ({ type: 'doc', id: `${lab.slug}/README`, label: `${lab.id} · ${lab.title}` })),
};
