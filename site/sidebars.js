'use strict';
// The labs sidebar, in the order of scripts/lib/labs.js (the one list of
// labs). A lab whose walkthrough is not written yet is left out rather than
// breaking the build.

const { labs, hasWalkthrough } = require('./plugins/workbook/repo');

module.exports = {
  labs: labs
    .filter(hasWalkthrough)
    .map((lab) => ({ type: 'doc', id: `${lab.slug}/README`, label: `${lab.id} · ${lab.title}` })),
};
