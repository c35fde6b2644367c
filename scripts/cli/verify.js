'use strict';
// `workbook verify`: what a trainer runs the day before, on a machine like
// the room's. Every lab's check, once on its shipped starter and once on its
// solution: each must give the right verdict. Prints the margins measured.

const { labs } = require('../lib/labs');
const { requireLab } = require('./options');
const { measureLab, marginText } = require('../lib/measure-lab');
const { formatNumber, thresholdText } = require('../lib/wording');
const { bold, dim, green, red } = require('../lib/style');
const { table } = require('../profile/read/table');
const { VERIFY_TAKES } = require('./commands');

module.exports = {
  usage: 'npx workbook verify [<lab> ...]',
  help: [
    "Runs each lab's check on its shipped starter (must fail) and its solution",
    `(must pass), and prints the figures with their margins: ${VERIFY_TAKES} on a`,
    '2-core machine. Name labs to verify only those.',
  ],
  options: {},
  async run({ positionals }) {
    const chosen = positionals.length ? positionals.map((id) => requireLab(id, this.usage)) : labs;
    const started = Date.now();
    const rows = [];
    let wrong = 0;
    for (const lab of chosen) {
      const summary = await measureLab(lab, {
        rerunNoisy: true,
        onStart: ({ side }) => process.stderr.write(dim(`lab ${lab.id} · ${side} … `, process.stderr)),
        onResult: ({ result, right, retrying }) => {
          if (retrying) {
            process.stderr.write(`${result.verdict} in ${(result.durationMs / 1000).toFixed(1)} s: running it once more, as the check advises\n`);
            return;
          }
          if (!right) wrong += 1;
          process.stderr.write(`${(right ? green : red)(`${result.verdict}${right ? '' : ' (wrong verdict)'}`, process.stderr)} in ${(result.durationMs / 1000).toFixed(1)} s\n`);
        },
      });
      for (const g of summary.gates) {
        const cell = (side) => {
          const x = g[side];
          if (!x) return '—';
          return `${formatNumber(x.median, g.unit)} (${marginText(x.worstMargin)})`;
        };
        rows.push([`${lab.id} ${g.id}`, thresholdText(g), cell('starter'), cell('solution')]);
      }
    }
    console.log(`\n${bold('Margins on this machine')} ${dim(`(Node ${process.version}; a starter must be past its threshold, a solution inside)`)}`);
    console.log(table(rows, ['gate', 'threshold', 'shipped starter', 'solution']));
    console.log(
      `\n${wrong ? red(`${wrong} wrong verdict${wrong === 1 ? '' : 's'}: this machine cannot judge those labs reliably.`) : green('Every check gave the right verdict on this machine.')} ` +
        dim(`(${Math.round((Date.now() - started) / 1000)} s)`),
    );
    if (wrong) console.log('Close busy programs and run it again; if a lab keeps failing, run npm run bench -- --lab <id> --runs 5 for the detail.');
    return wrong ? 1 : 0;
  },
};
