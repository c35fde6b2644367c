'use strict';
// The words a check result is told in, shared by the terminal
// (scripts/checks/format.js, `watch`, `verify`) and the site
// (site/src/lib/format.js), so both say the same thing. No dependencies: the
// site's browser bundle imports this file as it is.

/** 1812 ms, 18.7 ms, 6.72 ms: about three significant digits. */
function formatNumber(value, unit) {
  if (!Number.isFinite(value)) return String(value);
  // A count (imports, quotes held) is a whole number: "15 imports", not "15.0";
  // and one of them is singular: "1 query", not "1 queries".
  if (Number.isInteger(value)) return `${value}${unit ? ` ${value === 1 ? singular(unit) : unit}` : ''}`;
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return `${value.toFixed(digits)}${unit ? ` ${unit}` : ''}`;
}

/**
 * The singular of a unit that is a plain English plural ("queries" → "query",
 * "handshakes" → "handshake"); any other unit ("ms", "req/s", "B/request",
 * "% of one core") as it is.
 */
function singular(unit) {
  if (!/^[a-z]{4,}s$/.test(unit) || /ss$/.test(unit)) return unit;
  return unit.endsWith('ies') ? `${unit.slice(0, -3)}y` : unit.slice(0, -1);
}

/** "< 25.8 ms", "≥ 0.60 ×": a gate's threshold. */
function thresholdText(gate, unit = gate.unit) {
  return `${gate.op === '<' ? '<' : '≥'} ${formatNumber(gate.threshold, unit)}`;
}

/** "needs < 25.8 ms". */
function needsText(gate, unit = gate.unit) {
  return `needs ${thresholdText(gate, unit)}`;
}

/** "7.8× inside the threshold", "over 100× past the threshold". */
function marginText(gate) {
  const times = gate.margin >= 100 ? 'over 100×' : `${gate.margin.toFixed(1)}×`;
  return `${times} ${gate.pass ? 'inside' : 'past'} the threshold`;
}

const VERDICT_WORDS = {
  pass: 'PASS',
  fail: 'FAIL',
  noisy: 'TOO NOISY, RERUN',
  error: 'COULD NOT CHECK',
};

/** Splits "Profile it with `npx workbook profile 01`" into text and {code} parts. */
function withCode(text) {
  return String(text)
    .split(/(`[^`]+`)/)
    .filter(Boolean)
    .map((part) => (part.startsWith('`') ? { code: part.slice(1, -1) } : part));
}

/**
 * What to do after a check, as parts: strings, {code} (a command or path
 * inside a sentence), {command} (a whole command that ends the sentence, so a
 * terminal prints it bare, ready to copy) and {link, text} (a place on the
 * site). The terminal and the site render the same parts.
 *
 * @param {object} result a check result (scripts/checks/run-check.js)
 * @param {object} options
 * @param {Array<{id:string, slug:string, title:string, permalink?:string, hasReadme?:boolean}>} options.labs
 *   every lab, in order
 * @param {string[]|null} [options.unfinished] slugs of the labs the learner has
 *   not passed yet, or null when their progress is unknown (then the next lab
 *   in order is suggested)
 *   After a pass it names the next unfinished lab after this one, in order,
 *   and only when there is none an earlier one; never "go back to" a lab,
 *   which the learner may never have started.
 * @param {string} [options.advice] the check's advice after a fail (markdown `code`)
 * @param {'check'|'watch'|'site'} [options.where] `npx workbook check`, `watch`
 *   (the next check starts on save) or the site (links instead of file names)
 */
function nextStepParts(result, { labs, unfinished = null, advice, where = 'check' }) {
  const lab = labs.find((l) => l.slug === result.lab) || { id: String(result.lab).slice(0, 2), slug: result.lab };
  const site = where === 'site';
  const readme = `labs/${lab.slug}/README.md`;
  const again = where === 'watch' ? 'save' : 'check again';
  switch (result.verdict) {
    case 'pass': {
      const read = site ? ['Read ', { link: '#why-it-works', text: '“Why it works”' }] : [`Read "Why it works" in ${readme}`];
      const solution = where === 'watch' ? [' (', { code: `npx workbook solution ${lab.id}` }, ' shows the reference and why it works.)'] : [];
      const here = labs.indexOf(lab);
      const open = unfinished ? labs.filter((l) => l.slug !== lab.slug && unfinished.includes(l.slug)) : [];
      const following = unfinished ? open.find((l) => labs.indexOf(l) > here) || open[0] : labs[here + 1];
      if (!following) {
        const done = unfinished ? ' With this one, every lab of the workbook has passed its check.' : ' That was the last lab.';
        return [...read, `.${done}`, ...solution];
      }
      // An earlier lab is one not passed yet, which the learner may never
      // have opened: not one to "go back to".
      const go = 'go on to';
      const notYet = labs.indexOf(following) < here ? ', not passed yet' : '';
      if (site) {
        const name = `lab ${following.id}: ${following.title}`;
        return [...read, `, then ${go} `, following.hasReadme ? { link: following.permalink, text: name } : name, `${notYet}.`];
      }
      const command = `npx workbook ${where === 'watch' ? 'watch' : 'check'} ${following.id}`;
      // Ends on the command, so it can be copied as it is.
      const line = [...read, `, then ${go} lab ${following.id}${notYet}: `, { command }];
      return where === 'watch' ? [...line, '.', ...solution] : line;
    }
    case 'fail': {
      if (result.crash) {
        if (where === 'watch') return ['Fix the error above and save: the check runs again.'];
        if (site) return ['Fix the error above, then run the check again.'];
        return ['Fix the error above, then run the check again: ', { command: `npx workbook check ${lab.id}` }];
      }
      if ((result.responses || []).some((r) => !r.pass)) {
        return [`Make the responses above right again (the fix must keep the app's behaviour), then ${again}.`];
      }
      const how = advice ? withCode(advice) : [`Profile the app (see "Profile" in ${site ? 'the walkthrough above' : readme})`];
      return [...how, ', change ', { code: result.app }, `, and ${again}.`];
    }
    case 'noisy':
      return ['Close other busy programs (builds, video calls, browsers with heavy tabs) and run the check again.'];
    default:
      return ['This is a problem with the workbook, not your code: run ', { code: 'npm ci' }, ' again, then ', { code: 'npm test' }, '.'];
  }
}

/** Parts as terminal text: `code` in backticks, a closing command bare, a link by its text. */
function partsToText(parts) {
  return parts
    .map((part) => {
      if (typeof part === 'string') return part;
      if (part.command) return part.command;
      if (part.code) return `\`${part.code}\``;
      return part.text;
    })
    .join('');
}

module.exports = { formatNumber, thresholdText, needsText, marginText, VERDICT_WORDS, withCode, nextStepParts, partsToText };
