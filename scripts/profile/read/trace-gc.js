'use strict';
// Reads `node --trace-gc` output. One line per collection, e.g. (Node 20):
//   [4123:0x5f2c0a0]   812 ms: Mark-Compact 12.1 (14.3) -> 11.9 (14.6) MB, 4.1 / 0.0 ms  (average mu = 0.96, current mu = 0.93) allocation failure;
// Newer Node versions add fields ("pooled: 0 MB" from 22), Node 26 names
// the full collection "Incremental Mark-Compact", and some configurations
// name the young-space collector "Minor Mark-Sweep"; the parts read here are
// the same in all of them.

const LINE =
  /^\[(\d+):0x[0-9a-f]+\]\s+(\d+) ms: (Scavenge|(?:Minor |Incremental )?Mark-(?:Compact|Sweep|sweep))\b.*?([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB,(?:.*?pooled: [\d.]+ MB,)?\s*([\d.]+) \/ ([\d.]+) ms/;

function parseTraceGc(text) {
  const events = [];
  for (const raw of text.split(/\r?\n/)) {
    const m = LINE.exec(raw.trim());
    if (!m) continue;
    const kind = /^(Scavenge|Minor)/.test(m[3]) ? 'young' : 'old';
    // Mutator utilization: the share of the time the program itself ran
    // (the rest went to collecting), averaged by V8 over recent full
    // collections; V8 gives up near the heap limit when it stays low.
    const mu = /average mu = ([\d.]+), current mu = ([\d.]+)/.exec(raw);
    events.push({
      atMs: Number(m[2]),
      type: m[3],
      kind,
      beforeMb: Number(m[4]),
      afterMb: Number(m[6]),
      pauseMs: Number(m[8]),
      averageMu: mu ? Number(mu[1]) : null,
      currentMu: mu ? Number(mu[2]) : null,
    });
  }
  return events;
}

/**
 * What a learner wants from a GC trace: how many collections of each kind,
 * how long they paused the app, and whether the heap left after each full
 * (mark-compact) collection keeps rising, the signature of a leak.
 */
// How much the heap after full collections must grow to count as rising.
const RISE = { mb: 2, share: 0.25 };
// How many full collections it takes to call the heap level.
const LEVEL_AFTER = 3;

function summarizeTraceGc(events) {
  const young = events.filter((e) => e.kind === 'young');
  const old = events.filter((e) => e.kind === 'old');
  const pause = (list) => list.reduce((sum, e) => sum + e.pauseMs, 0);
  let trend = null;
  if (old.length >= 2) {
    const first = old[0];
    const last = old[old.length - 1];
    const seconds = (last.atMs - first.atMs) / 1000;
    const steps = old.slice(1).map((e, i) => e.afterMb - old[i].afterMb);
    trend = {
      fromMb: first.afterMb,
      toMb: last.afterMb,
      mbPerSecond: seconds > 0 ? (last.afterMb - first.afterMb) / seconds : 0,
      // Rising: clearly higher at the end, both in proportion and in
      // megabytes (a fixed app's heap settles a few hundred KB above where it
      // started as caches and compiled code warm up), and mostly going up on
      // the way (one collection can land lower without changing the picture).
      rising:
        last.afterMb - first.afterMb > Math.max(RISE.mb, RISE.share * first.afterMb) &&
        steps.filter((d) => d >= 0).length >= 0.6 * steps.length,
    };
    // Level is a claim about absence: two collections a second apart cannot
    // tell a level heap from a slow leak (a leak's 1.5 MB/s shows as 1.5 MB,
    // under the bar), so it takes at least LEVEL_AFTER of them.
    trend.level = !trend.rising && old.length >= LEVEL_AFTER;
  }
  return {
    young: { count: young.length, pauseMs: pause(young), types: [...new Set(young.map((e) => e.type))] },
    old: { count: old.length, pauseMs: pause(old), types: [...new Set(old.map((e) => e.type))], after: old.map((e) => ({ atMs: e.atMs, afterMb: e.afterMb, beforeMb: e.beforeMb })) },
    trend,
  };
}

module.exports = { parseTraceGc, summarizeTraceGc, RISE, LEVEL_AFTER };
