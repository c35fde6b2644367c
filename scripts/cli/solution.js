'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { relative } = require('../lib/labs');
const { stateOf } = require('../lib/progress');
const { readWalkthroughSection } = require('../lib/walkthrough');
const { renderMarkdown } = require('../lib/terminal-markdown');
const { shippedContent } = require('../lib/shipped');
const { backUp } = require('../lib/restore-starter');
const { unifiedDiff } = require('../lib/colour-diff');
const { bold, dim, yellow } = require('../lib/style');
const { requireLab } = require('./options');

module.exports = {
  usage: 'npx workbook solution <lab> [--spoil] [--apply]',
  help: [
    'Shows what the reference solution changes, and the walkthrough\'s "Why it',
    'works". It is meant for after your check passes; before that it asks for',
    '--spoil (looking early is allowed, but it spoils the lab).',
    '  --spoil   show it although your check has not passed yet',
    '  --apply   also copy the solution over your app.js (yours is backed up first)',
  ],
  options: { spoil: { type: 'boolean' }, apply: { type: 'boolean' } },
  async run({ values, positionals }) {
    const lab = requireLab(positionals[0], this.usage);
    const { state, entry } = stateOf(lab);
    const passed = state === 'passing' || Boolean(entry?.firstPassAt);
    if (!passed && !values.spoil) {
      console.log(
        yellow(`Your check of lab ${lab.id} has not passed yet, so the solution would spoil the lab.`) +
          `\nStuck? npx workbook hint ${lab.id} gives one step at a time. To look anyway: npx workbook solution ${lab.id} --spoil`,
      );
      return 0;
    }
    const starter = shippedContent(lab, 'app.js');
    const solution = fs.readFileSync(lab.solutionApp, 'utf8');
    console.log(bold(`Lab ${lab.id} · the reference solution: ${relative(lab.solutionApp)}`));
    if (!passed) console.log(dim('(Shown before a pass, as asked: it spoils the lab.)'));
    console.log(starter.error ? solution : unifiedDiff(`${relative(lab.app)} (as shipped)`, relative(lab.solutionApp), starter.content, solution).text);
    console.log(`\n${bold('Why it works')}`);
    console.log(renderMarkdown(readWalkthroughSection(lab.readme, 'Why it works')));
    if (values.apply) {
      const backupDir = backUp(lab, ['app.js']);
      fs.copyFileSync(lab.solutionApp, lab.app);
      const kept = backupDir ? ` Your version is kept in ${relative(path.join(backupDir, 'app.js'))}.` : '';
      console.log(`\nCopied the solution over ${relative(lab.app)}.${kept}`);
    }
    return 0;
  },
};
