// How the site words a check result: the same sentences as the terminal. The
// figures, thresholds, margins and verdict names come from the one module both
// use (scripts/lib/wording.js); the rest is what only a page needs (dates,
// links in the next step).
import { formatNumber, marginText, needsText, VERDICT_WORDS } from '../../../scripts/lib/wording';

export { formatNumber, marginText, needsText };

const TONES = { pass: 'pass', fail: 'fail', noisy: 'warn', error: 'warn' };
export const VERDICTS = Object.fromEntries(Object.entries(VERDICT_WORDS).map(([verdict, text]) => [verdict, { text, tone: TONES[verdict] }]));

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
