'use strict';
// The staircase of slow downloads lab 09's check measures, as plain
// functions (unit-tested in staircase.test.js): which exports to ask for on
// this machine, and what the memory each one held says.

const MB = 1024 * 1024;
const DAY = 86_400_000;

// The driver's 2025, in bytes of export per day: 35,658,204 bytes of JSON
// and 17,315,103 of CSV over 365 days (contract.js, from orders-db.js).
const BYTES_PER_DAY = { json: 97_694, csv: 47_439 };

const isoDay = (ms) => new Date(ms).toISOString().slice(0, 10);
const plusDays = (from, days) => isoDay(Date.parse(from) + days * DAY);

/**
 * The staircase of one run: JSON exports of j and 2j days, CSV exports of c
 * days and of everything from a day of February or March up to now, each
 * starting on a day chosen at random for this run (so no two runs ask for
 * the same ranges), all within 2025 but the open-ended one, which ends with
 * the orders the check posted. j and c are the smallest sizes the kernel's
 * share allows, and at least the settings' days. Each step carries its
 * expected size (`estimate`, bytes) until the contract gives the exact one.
 * @param {number} kernelBytes what the kernel takes of a stalled download here
 * @param {{spareMb:number, smallestJsonDays:number, smallestCsvDays:number}} settings the check's
 * @returns {{steps: object[]}|{error: string}}
 */
function exportPlan(kernelBytes, { spareMb, smallestJsonDays, smallestCsvDays }, random = Math.random) {
  const least = (format, days) => Math.max(days, Math.ceil((kernelBytes + spareMb * MB) / BYTES_PER_DAY[format]));
  const j = least('json', smallestJsonDays);
  const c = least('csv', smallestCsvDays);
  // The open-ended CSV export must be well larger than the other one.
  if (2 * j > 330 || c > 200) {
    return { error: `this machine's sockets take ${mb(kernelBytes)} of a download whose client reads nothing, more than the exports of 2025 leave room for (the check needs exports several times larger than that)` };
  }
  const yearEnd = Date.parse('2026-01-01');
  // A start day at random in the 28 days from `earliest`, leaving room for `days`.
  const start = (earliest, days) => {
    const first = Date.parse(earliest);
    const last = Math.min(first + 28 * DAY, yearEnd - days * DAY);
    return isoDay(first + Math.floor(random() * Math.max(1, (last - first) / DAY)) * DAY);
  };
  const span = (format, earliest, days) => {
    const from = start(earliest, days);
    return { format, from, to: plusDays(from, days), days, estimate: days * BYTES_PER_DAY[format] };
  };
  const from = start('2025-02-15', 0);
  const open = { format: 'csv', from, days: null, estimate: ((yearEnd - Date.parse(from)) / DAY) * BYTES_PER_DAY.csv };
  // A slow download before the staircase, released once the app has
  // settled, and not judged (see measureApp): `warmUp`.
  return { warmUp: span('csv', '2025-06-01', c), steps: [span('json', '2025-03-01', j), span('json', '2025-02-01', 2 * j), span('csv', '2025-04-01', c), open] };
}

const exportPath = ({ from, to, format }) => `/orders/export?from=${from}${to ? `&to=${to}` : ''}${format ? `&format=${format}` : ''}`;
const fileName = ({ from, to, format = 'csv' }) => `orders-${from}-${to ?? 'now'}.${format}`;
const describeStep = (s, bytes = s.bytes ?? s.estimate) => `${s.format.toUpperCase()} ${s.to ? `of ${s.days} days` : `from ${s.from} up to now`} (${mb(bytes)})`;

/**
 * How the memory an export holds changes with its size: between each two
 * consecutive sizes of one format, the change in MB per MB of export; the
 * figure is the largest, either way.
 */
function growthFigure(steps) {
  const size = (s) => s.bytes ?? s.estimate;
  const pairs = [];
  for (const format of ['json', 'csv']) {
    const sized = steps.filter((s) => s.format === format).sort((a, b) => size(a) - size(b));
    for (let i = 1; i < sized.length; i++) {
      const [a, b] = [sized[i - 1], sized[i]];
      pairs.push({ a, b, value: Math.abs(b.held - a.held) / Math.max(size(b) - size(a), 1) });
    }
  }
  if (!pairs.length) return { value: NaN };
  const worst = pairs.reduce((w, p) => (p.value > w.value ? p : w));
  const signed = worst.b.held - worst.a.held;
  return {
    value: worst.value,
    scale:
      `the most the memory held for one export changed between two sizes of it: ${signed >= 0 ? '+' : '−'}${mb(Math.abs(signed))} from ` +
      `${describeStep(worst.a)} holding ${mb(worst.a.held)} to ${describeStep(worst.b)} holding ${mb(worst.b.held)}, ` +
      'each while its client read nothing; every thread, Buffers included, after a forced collection',
  };
}

/** The shape of the memory held against the export's size, in words. */
function diagnose(steps) {
  const size = (s) => s.bytes ?? s.estimate;
  const lines = [];
  for (const format of ['json', 'csv']) {
    const sized = steps.filter((s) => s.format === format).sort((a, b) => size(a) - size(b));
    if (sized.length < 2) continue;
    const [small, large] = [sized[0], sized.at(-1)];
    const slope = (large.held - small.held) / (size(large) - size(small));
    const name = format.toUpperCase();
    if (slope > 0.5) lines.push(`${name}: about ${slope.toFixed(1)} MB more held for each MB more of export: the export is built, or queued without waiting for 'drain', in the app's memory`);
    else if (slope < -0.2) lines.push(`${name}: the smaller export held more (${mb(small.held)}) than the larger one (${mb(large.held)}): smaller exports are built whole before they are sent`);
    else if (Math.abs(slope) >= 0.1) {
      const most = Math.max(...sized.map((s) => s.held));
      lines.push(`${name}: the larger exports held ${mb(most)} each, the smallest ${mb(small.held)}: a bounded piece, but larger than what the smallest export leaves the app once the socket has taken its share, so the app holds more at once than the check accepts`);
    }
  }
  return lines.join('; ');
}

function mb(bytes) {
  return `${(bytes / MB).toFixed(2)} MB`;
}

module.exports = { BYTES_PER_DAY, exportPlan, growthFigure, diagnose, describeStep, exportPath, fileName, isoDay, mb };
