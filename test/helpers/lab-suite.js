'use strict';
// The one verdict suite every lab runs, from its labs/<slug>/check/verdicts.test.js
// (a one-line file `workbook dev new` writes; identical in every lab, so
// `npm test -- 03` runs lab 03's suite alone: scripts/self-check.js turns a lab's
// number or name into its folder):
//   - the reference solution passes its check;
//   - the shipped starter fails it, on exactly the gates its check names in
//     starterFails, with every response right (it is slow, not wrong);
//   - the learner's own labs/<slug>/app.js: "not started" while it is as
//     shipped, otherwise judged by the same check as `npx workbook check`,
//     whose explanation is the failure message.
// Each lab's line for the summary at the end of `npm test` is written to
// .workbook/self-check/ (test/helpers/self-check-summary.js prints it).

const fs = require('node:fs');
const path = require('node:path');
const { readLabs, findLab, checkOf, relative } = require('../../scripts/lib/labs');
const { labFiles, isShipped } = require('../../scripts/lib/shipped');
const { describeLabVerdicts, checkWithProgress, explain } = require('./lab-verdicts');
const { recordSelfCheck } = require('./self-check-record');
const { killAll } = require('../../scripts/harness/children');

/** The learner's edited lab files, or [] when the lab is as shipped. */
function editedFiles(lab) {
  return labFiles(lab).filter((file) => !isShipped(lab, file));
}

/** @param {string} checkDir the lab's labs/<slug>/check folder (__dirname of its test) */
function describeLab(checkDir) {
  const slug = path.basename(path.dirname(checkDir));
  const root = path.resolve(checkDir, '..', '..', '..');
  const lab = findLab(slug, readLabs(root));
  if (!lab) throw new Error(`${slug} is not in labs/labs.json: add its entry there.`);
  const check = checkOf(lab);

  describe(`lab ${lab.id} · ${lab.title}`, () => {
    afterAll(() => killAll());
    if (provesChecksOf(lab)) {
      describeLabVerdicts(lab, { starterFails: check.starterFails, starterMayFail: check.starterMayFail });
    } else {
      // Measuring every lab's reference and starter takes 5-25 s a lab: in a
      // plain `npm test`, that is done for the labs the learner has started,
      // whose verdicts it vouches for (`npx workbook verify` does every lab).
      test.skip(`the reference passes and the shipped starter fails: measured once you start lab ${lab.id} (or now: npm test -- ${lab.id}, npx workbook verify ${lab.id})`, () => {});
    }
    describeLearnerFix(lab);
  });
}

/**
 * Whether this run proves the lab's check on this machine (its reference
 * passes, its shipped starter fails): for a lab the learner has started,
 * one named on the command line (`npm test -- 03`, see scripts/self-check.js),
 * or every lab with WORKBOOK_VERIFY_ALL=1 (CI, a trainer's machine).
 */
function provesChecksOf(lab, env = process.env) {
  if (env.WORKBOOK_VERIFY_ALL === '1') return true;
  return namedLabs(env).includes(lab.slug) || editedFiles(lab).length > 0;
}

/** The slugs of the labs named on the command line (`npm test -- 03 09`), set by scripts/self-check.js. */
function namedLabs(env = process.env) {
  return (env.WORKBOOK_SELF_CHECK_LABS || '').split(',').filter(Boolean);
}

function describeLearnerFix(lab) {
  const mine = relative(lab.app);
  const edited = editedFiles(lab);
  if (edited.length === 0) {
    test(`your ${mine}: not started (still as shipped)`, () => {
      recordSelfCheck(lab, { state: 'not started', why: `start with npx workbook watch ${lab.id}`, checkProven: provesChecksOf(lab) });
    });
    return;
  }
  test(`your ${mine} passes its check`, async () => {
    const result = await checkWithProgress(lab, lab.app, 'your fix');
    const gatesMissed = result.gates.filter((g) => !g.pass).map((g) => g.label);
    const wrong = result.responses.filter((r) => !r.pass).map((r) => r.name);
    const why =
      result.verdict === 'pass'
        ? `every gate met (${result.gates.map((g) => `${g.id} ${g.margin.toFixed(1)}× inside`).join(', ')})`
        : result.crash
          ? `the app crashed: ${result.crash.message}`
          : wrong.length
            ? `wrong responses: ${wrong.slice(0, 2).join('; ')}${wrong.length > 2 ? ` and ${wrong.length - 2} more` : ''}`
            : result.verdict === 'noisy'
              ? 'the machine was too busy to judge: close busy programs and rerun'
              : `missed: ${gatesMissed.join('; ')}`;
    const state = { pass: 'your fix passes', fail: 'your fix fails', noisy: 'too noisy, rerun', error: 'could not check' }[result.verdict];
    recordSelfCheck(lab, { state, why });
    if (result.verdict !== 'pass') throw new Error(explain(result));
  });
}

module.exports = { describeLab, editedFiles, provesChecksOf, namedLabs };
