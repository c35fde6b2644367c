'use strict';
const { readWalkthrough } = require('../lib/walkthrough');
const { hintsSeen, recordHintSeen } = require('../lib/progress');
const { renderMarkdown } = require('../lib/terminal-markdown');
const { bold, dim } = require('../lib/style');
const { requireLab } = require('./options');

module.exports = {
  usage: 'npx workbook hint <lab> [--all] [--again]',
  help: [
    'Shows the next hint of the lab\'s ladder (from its README\'s "Hints" section),',
    'from "where to look" to "what to change". Each call shows one more.',
    '  --all     show every hint at once',
    '  --again   show the hints you have already seen, and no new one',
  ],
  options: { all: { type: 'boolean' }, again: { type: 'boolean' } },
  async run({ values, positionals }) {
    const lab = requireLab(positionals[0], this.usage);
    const { hints } = readWalkthrough(lab.readme);
    const seen = hintsSeen(lab);
    const show = values.all ? hints.length : values.again ? Math.max(seen, 1) : Math.min(seen + 1, hints.length);
    const first = values.all || values.again ? 0 : show - 1;
    for (let i = first; i < show; i++) {
      console.log(`\n${bold(`Lab ${lab.id} · hint ${i + 1} of ${hints.length}`)}${i === hints.length - 1 ? dim(' (nearly the answer)') : ''}`);
      console.log(renderMarkdown(hints[i]));
    }
    if (!values.again) recordHintSeen(lab, show);
    console.log('');
    if (show < hints.length) {
      console.log(dim(`Still stuck? npx workbook hint ${lab.id} shows hint ${show + 1}. Then check your change: npx workbook check ${lab.id}`));
    } else {
      console.log(
        dim(
          `That was the last hint. The walkthrough's "Fix" section (labs/${lab.slug}/README.md) says what the reference changes; ` +
            `its code is folded into the workbook's site (npm start), and npx workbook solution ${lab.id} shows it once your check passes.`,
        ),
      );
    }
    return 0;
  },
};
