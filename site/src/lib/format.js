// How the site words a check result. It mirrors the terminal's wording
// (scripts/checks/format.js), so a learner sees the same sentences in both.

/** 1812 ms, 18.7 ms, 6.72 ms: three significant-ish digits, as the CLI prints. */
export function formatNumber(value, unit) {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return `${value.toFixed(digits)}${unit ? ` ${unit}` : ''}`;
}

export function formatMargin(gate) {
  const times = gate.margin >= 100 ? 'over 100×' : `${gate.margin.toFixed(1)}×`;
  return gate.pass ? `${times} inside the threshold` : `${times} past the threshold`;
}

export const VERDICTS = {
  pass: { text: 'PASS', tone: 'pass' },
  fail: { text: 'FAIL', tone: 'fail' },
  noisy: { text: 'TOO NOISY, RERUN', tone: 'warn' },
  error: { text: 'COULD NOT CHECK', tone: 'warn' },
};

export function formatDuration(ms) {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** "3 min ago", "yesterday", or a date: for "last checked" lines. */
export function formatWhen(iso, now = Date.now()) {
  const at = Date.parse(iso);
  if (!Number.isFinite(at)) return '';
  const s = Math.round((now - at) / 1000);
  if (s < 45) return 'just now';
  if (s < 45 * 60) return `${Math.max(1, Math.round(s / 60))} min ago`;
  if (s < 20 * 3600) return `${Math.round(s / 3600)} h ago`;
  return new Date(at).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' });
}

export function formatDate(iso) {
  const at = Date.parse(iso);
  return Number.isFinite(at) ? new Date(at).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric' }) : iso;
}

/**
 * What to do next, as a list of parts: strings, {code} or {link, text}.
 * Same decisions and words as nextStep() in scripts/checks/format.js, with
 * links where the terminal names a file.
 */
export function nextStep(result, labs, checkAdvice) {
  const index = labs.findIndex((l) => l.slug === result.lab);
  switch (result.verdict) {
    case 'pass': {
      const following = labs[index + 1];
      if (!following) return ['Read ', { link: '#why-it-works', text: '“Why it works”' }, '. That was the last lab.'];
      const name = `lab ${following.id}: ${following.title}`;
      return [
        'Read ',
        { link: '#why-it-works', text: '“Why it works”' },
        ', then go on to ',
        following.hasReadme ? { link: following.permalink, text: name } : name,
        '.',
      ];
    }
    case 'fail':
      if (result.crash) return ['Fix the error above, then run the check again.'];
      if (result.responses.some((r) => !r.pass)) {
        return ["Make the responses above right again (the fix must keep the app's behaviour), then check again."];
      }
      return [
        ...withCode(checkAdvice || `Profile the app (see “Profile” above)`),
        ', change ',
        { code: result.app },
        ', and check again.',
      ];
    case 'noisy':
      return ['Close other busy programs (builds, video calls, browsers with heavy tabs) and run the check again.'];
    default:
      return [
        'This is a problem with the workbook, not your code: run ',
        { code: 'npm ci' },
        ' again, then ',
        { code: 'npm test' },
        '.',
      ];
  }
}

/** Splits "Profile it with `npx workbook profile 01`" into text and {code} parts. */
export function withCode(text) {
  return text.split(/(`[^`]+`)/).filter(Boolean).map((part) => (part.startsWith('`') ? { code: part.slice(1, -1) } : part));
}
