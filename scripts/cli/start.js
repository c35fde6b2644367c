'use strict';
// `npm start`. For now: where you are and what to do next (the workbook site
// takes over this command when it lands).
const list = require('./list');

module.exports = {
  summary: 'open the workbook',
  usage: 'npm start',
  help: ['Shows the labs and where to begin.'],
  options: {},
  async run(args) {
    console.log('Node.js profiling workbook\n');
    return list.run(args);
  },
};
