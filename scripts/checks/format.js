'use strict';
// Turns a check result into what a learner reads in the terminal: every
// figure against its threshold, what it means, the verdict, and what next.

const { bold, dim, green, red, yellow } = require('../lib/style');
const { labs } = require('../lib/labs');

const MARK = { pass: '✓', fail: '✗' };

function formatNumber(value, unit) {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return `${value.toFixed(digits)}${unit ? ` ${unit}` : ''}`;
}

function formatGate(g) {
  const mark = g.pass ? green(MARK.pass) : red(MARK.fail);
  const needs = `needs ${g.op === '<' ? '<' : '≥'} ${formatNumber(g.threshold, g.unit)}`;
  const how = g.scale ? ` = ${g.scale}` : '';
  const times = g.margin >= 100 ? 'over 100×' : `${g.margin.toFixed(1)}×`;
  const margin = g.pass
    ? dim(`(${times} inside the threshold)`)
    : red(`(${times} past the threshold)`);
  return [
    `  ${mark} ${g.label}: ${bold(formatNumber(g.value, g.unit))}`,
    `      ${needs}${dim(how)} ${margin}`,
    `      ${g.meaning}`,
  ].join('\n');
}

function nextStep(result) {
  const lab = labs.find((l) => l.slug === result.lab);
  const readme = `labs/${result.lab}/README.md`;
  switch (result.verdict) {
    case 'pass': {
      const following = labs[labs.indexOf(lab) + 1];
      return (
        `Read "Why it works" in ${readme}` +
        (following ? `, then go on to lab ${following.id}: npx workbook check ${following.id}` : '. That was the last lab.')
      );
    }
    case 'fail': {
      if (result.crash) return `Fix the error above, then run the check again: npx workbook check ${lab.id}`;
      if (result.responses.some((r) => !r.pass)) return `Make the responses above right again (the fix must keep the app's behaviour), then check again.`;
      const advice = require(lab.checkModule).advice;
      return `${advice || `Profile the app (see "Profile" in ${readme})`}, change ${result.app}, and check again.`;
    }
    case 'noisy':
      return 'Close other busy programs (builds, video calls, browsers with heavy tabs) and run the check again.';
    default:
      return 'This is a problem with the workbook, not your code: run `npm ci` again, then `npm test`.';
  }
}

const VERDICT_TEXT = {
  pass: () => green(bold('PASS')),
  fail: () => red(bold('FAIL')),
  noisy: () => yellow(bold('TOO NOISY, RERUN')),
  error: () => yellow(bold('COULD NOT CHECK')),
};

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

  if (result.info.length) {
    out.push('');
    out.push(bold('For information (not judged)'));
    for (const item of result.info) {
      out.push(`  ${item.label}: ${formatNumber(item.value, item.unit)}`);
      if (item.text) out.push(dim(`      ${item.text}`));
    }
  }

  if (result.noise.length) {
    out.push('');
    out.push(yellow(`The machine was too busy to judge: ${result.noise.join('; ')}.`));
  }

  out.push('');
  out.push(`Verdict: ${VERDICT_TEXT[result.verdict]()}`);
  out.push(`Next: ${nextStep(result)}`);
  out.push('');
  return out.join('\n');
}

module.exports = { formatResult, formatNumber, nextStep };
