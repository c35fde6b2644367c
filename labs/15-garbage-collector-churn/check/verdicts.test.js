'use strict';
// This lab's self-check: the reference passes, the shipped starter fails,
// and your own app.js is judged (test/helpers/lab-suite.js). Written by
// `npx workbook dev new`, the same in every lab: `npm test -- <lab id>` runs it.
require('../../../test/helpers/lab-suite').describeLab(__dirname);
