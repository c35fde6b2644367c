'use strict';
const fs = require('node:fs');
const { relative } = require('../lib/labs');
const { shippedContent } = require('../lib/shipped');
const { unifiedDiff } = require('../lib/colour-diff');
const { requireLab } = require('./options');

module.exports = {
  usage: 'npx workbook diff <lab> [--solution]',
  help: [
    'Prints a unified diff of labs/<lab>/app.js against the app as shipped.',
    '  --solution   against the reference solution instead (spoils the lab)',
  ],
  options: { solution: { type: 'boolean' } },
  async run({ values, positionals }) {
    const lab = requireLab(positionals[0], this.usage);
    const mine = fs.existsSync(lab.app) ? fs.readFileSync(lab.app, 'utf8') : '';
    let theirs;
    let name;
    if (values.solution) {
      theirs = fs.readFileSync(lab.solutionApp, 'utf8');
      name = relative(lab.solutionApp);
    } else {
      const shipped = shippedContent(lab, 'app.js');
      if (shipped.error) {
        console.error(`Cannot compare with the shipped starter: ${shipped.error}.`);
        return 1;
      }
      theirs = shipped.content;
      name = `${relative(lab.app)} (as shipped)`;
    }
    const { changed, text } = unifiedDiff(name, `${relative(lab.app)} (yours)`, theirs, mine);
    if (!changed) {
      console.log(values.solution ? 'Your app is identical to the reference solution.' : `You have not changed ${relative(lab.app)} yet.`);
      return 0;
    }
    console.log(text);
    return 0;
  },
};
