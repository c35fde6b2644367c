'use strict';
// Turns a check result into what a learner reads in the terminal: every
// figure against its threshold, what it means, the verdict, and what next.

const { bold, dim, green, red, yellow } = require('../lib/style');
const { labs, checkOf } = require('../lib/labs');
const { formatNumber, needsText, marginText, VERDICT_WORDS, nextStepParts, partsToText } = require('../lib/wording');
const { unfinishedLabs } = require('../lib/progress');
const { DECISIVE } = require('./define-check');

const MARK = { pass: '✓', fail: '✗' };

function formatGate(g) {
  const mark = g.pass ? green(MARK.pass) : red(MARK.fail);
  const how = g.scale ? ` = ${g.scale}` : '';
  const margin = (g.pass ? dim : red)(`(${marginText(g)})`);
  return [
    `  ${mark} ${g.label}: ${bold(formatNumber(g.value, g.unit))}`,
    `      ${needsText(g)}${dim(how)} ${margin}`,
    `      ${g.meaning}`,
  ].join('\n');
}

/**
 * What to do after this result, as one line (the decisions and words are
 * nextStepParts() in scripts/lib/wording.js, shared with the site).
 * `watching`: for `workbook watch`, where the next check starts when the
 * learner saves, not when they run it. After a pass it names the first lab
 * the learner has not passed yet (from their progress record).
 */
function nextStep(result, { watching = false } = {}) {
  const lab = labs.find((l) => l.slug === result.lab);
  const unfinished = unfinishedLabs().map((l) => l.slug);
  const advice = lab ? checkOf(lab).advice : undefined;
  return partsToText(nextStepParts(result, { labs, unfinished, advice, where: watching ? 'watch' : 'check' }));
}

const VERDICT_COLOUR = { pass: green, fail: red, noisy: yellow, error: yellow };

/** PASS, FAIL, … in the verdict's colour. */
function verdictText(verdict) {
  return VERDICT_COLOUR[verdict](bold(VERDICT_WORDS[verdict]));
}

function formatResult(result) {
  const out = [];
  const env = result.environment;
  out.push('');
  out.push(bold(`Lab ${result.lab.slice(0, 2)} · ${result.title}`));
  out.push(
    dim(
      `Checked ${result.app} on Node ${env.node}, ${env.cpus} CPU${env.cpus === 1 ? '' : 's'} (${env.cpuModel}), ` +
        `in ${(result.durationMs / 1000).toFixed(1)} s` +
        (result.attempts > 1 ? `, ${result.attempts} attempts` : ''),
    ),
  );

  for (const problem of [result.crash, result.error].filter(Boolean)) {
    out.push('');
    out.push(red(problem.message));
    if (problem.detail) {
      out.push(dim('  The app printed:'));
      out.push(...problem.detail.split('\n').map((line) => dim(`  │ ${line}`)));
    }
  }

  if (result.responses.length) {
    const wrong = result.responses.filter((r) => !r.pass);
    out.push('');
    out.push(
      `${bold('Responses')}  ${result.responses.length - wrong.length}/${result.responses.length} as expected` +
        (wrong.length ? '' : ` ${green(MARK.pass)}`),
    );
    for (const r of wrong) {
      out.push(`  ${red(MARK.fail)} ${r.name}`);
      out.push(`      expected ${r.expected}, got ${r.actual}`);
    }
  }

  if (result.gates.length) {
    out.push('');
    out.push(bold('Measured'));
    out.push(...result.gates.map(formatGate));
  }

  if (result.early) {
    out.push('');
    const exact = new Set(Object.entries(checkOf(labs.find((l) => l.slug === result.lab)).gates).filter(([, g]) => g.exact).map(([id]) => id));
    // Which gates decided, as judge() marked them (define-check.js); here only why, in words.
    const decided = result.gates.filter((g) => g.decisive).map((g) => {
      if (exact.has(g.id)) return `${g.label} is a count, and it is over its limit`;
      if (g.margin >= DECISIVE) return `${g.label} was already ${marginText(g)} (${DECISIVE}× decides)`;
      return `${g.label} was ${marginText(g)}, and ${g.certain}`;
    });
    // Named rather than counted: one case may stand for many answers ("the
    // answers to 490 addresses … 43 of them wrong").
    const failed = result.responses.filter((r) => !r.pass).map((r) => r.name);
    const why = decided.length
      ? decided.join('; ')
      : failed.length === 1
        ? `a check of the responses failed (${failed[0]})`
        : `${failed.length} checks of the responses failed (${failed.slice(0, 2).join('; ')}${failed.length > 2 ? '; …' : ''})`;
    out.push(yellow(`Stopped after ${result.early.stage}: ${why}, so nothing measured later could change the verdict.`));
    if (result.early.unmeasured.length) out.push(dim(`  Not measured this time: ${result.early.unmeasured.join(', ')}.`));
  }

  if (result.info.length) {
    out.push('');
    out.push(bold('For information (not judged)'));
    for (const item of result.info) {
      // An item that is a sentence, not a figure (NaN here, null once saved as JSON), shows its label alone.
      out.push(Number.isFinite(item.value) ? `  ${item.label}: ${formatNumber(item.value, item.unit)}` : `  ${item.label}`);
      if (item.text) out.push(dim(`      ${item.text}`));
    }
  }

  if (result.noise.length) {
    out.push('');
    out.push(yellow(`The machine was too busy to judge: ${result.noise.join('; ')}.`));
  }

  out.push('');
  out.push(`Verdict: ${verdictText(result.verdict)}`);
  out.push(`Next: ${nextStep(result)}`);
  out.push('');
  return out.join('\n');
}

module.exports = { formatResult, formatNumber, nextStep, verdictText };
