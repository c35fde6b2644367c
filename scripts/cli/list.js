'use strict';
const { labs } = require('../lib/labs');
const { stateOf } = require('../lib/progress');
const { bold, dim, green, yellow } = require('../lib/style');
const { formatNumber } = require('../checks/format');

const STATE_TEXT = {
  'not-started': (t) => dim(t),
  'in-progress': (t) => yellow(t),
  passing: (t) => green(t),
};

function ago(iso) {
  const minutes = Math.round((Date.now() - Date.parse(iso)) / 60000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  if (minutes < 48 * 60) return `${Math.round(minutes / 60)} h ago`;
  return `${Math.round(minutes / 1440)} days ago`;
}

module.exports = {
  usage: 'npx workbook list',
  help: ['Shows every lab with its state: not started, in progress, or passing.'],
  options: {},
  async run() {
    console.log(bold('Labs'));
    let next = null;
    // One column for the states, after the longest title.
    const width = Math.max(...labs.map((lab) => lab.title.length));
    for (const lab of labs) {
      const { state, entry } = stateOf(lab);
      if (!next && state !== 'passing') next = lab;
      const best = entry?.best?.headline;
      const detail = best
        ? dim(` best: ${best.label} ${formatNumber(best.value, best.unit)} (${entry.best.verdict}, ${ago(entry.best.at)})`)
        : '';
      console.log(`  ${lab.id}  ${lab.title.padEnd(width)}  ${STATE_TEXT[state](state.replace('-', ' ').padEnd(11))}${detail}`);
    }
    console.log('');
    if (next) {
      console.log(`Next: open labs/${next.slug}/README.md, then check your fix with: npx workbook check ${next.id}`);
    } else {
      console.log('Every lab passes. Well done.');
    }
    return 0;
  },
};
