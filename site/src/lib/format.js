// How the site words a check result: the same sentences as the terminal. The
// figures, thresholds, margins and verdict names come from the one module both
// use (scripts/lib/wording.js); the rest is what only a page needs (dates,
// links in the next step).
import { formatNumber, marginText, needsText, nextStepParts, VERDICT_WORDS, withCode } from '../../../scripts/lib/wording';

export { formatNumber, marginText, needsText, withCode };

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
 * What to do next, as parts for <Rich>: the same decisions and words as the
 * terminal's (nextStepParts in scripts/lib/wording.js), with links where the
 * terminal names a file.
 * @param {object} result the check result
 * @param {object[]} labs the labs as the workbook plugin loaded them
 * @param {object[]|null} states the labs' states from the workbook server's API
 *   (GET /api/labs), or null when unknown
 */
export function nextStep(result, labs, states) {
  const lab = labs.find((l) => l.slug === result.lab);
  const unfinished = states ? states.filter((s) => s.state !== 'passing').map((s) => s.slug) : null;
  return nextStepParts(result, { labs, unfinished, advice: lab?.advice, where: 'site' });
}
