'use strict';
// Run in a plain Node process of its own (CheckContext.calibrator): the
// CPU time, on this machine now, of building one order line (what the
// database's stand-in does for every line of an order it finds), the unit
// (t) in which the check judges what logging adds per order line. Building
// objects costs about the same on Node 20 to 26 (0.13-0.16 µs a line on the
// 2-vCPU machine), where JSON.stringify got twice as fast (0.40 µs on 20,
// 0.20 on 26): a unit that tracks the machine, not V8's fast paths.

const { find } = require('../orders-db');

/**
 * µs of CPU per order line to build the orders `ids`: passes of at least
 * `passMs` each (a few ms would time the collector's moods), the fastest
 * of `runs` after two untimed ones (the least disturbed is the cost).
 */
function lineCost(ids, runs = 7, passMs = 20) {
  const perRound = ids.map(find).filter(Boolean).reduce((n, o) => n + o.lines.length, 0);
  let sink = 0;
  const round = () => {
    for (const id of ids) sink += find(id).lines.length;
  };
  // How many rounds make a pass of passMs, from one timed round.
  const probe = process.cpuUsage();
  round();
  const { user, system } = process.cpuUsage(probe);
  const rounds = Math.max(1, Math.ceil((passMs * 1000) / Math.max(1, user + system)));
  const pass = () => {
    const start = process.cpuUsage();
    for (let r = 0; r < rounds; r++) round();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / (perRound * rounds);
  };
  for (let i = 0; i < 2; i++) pass();
  const samples = Array.from({ length: runs }, pass).sort((a, b) => a - b);
  return { t: samples[0], samples, lines: perRound * rounds, sink };
}

module.exports = { lineCost };
