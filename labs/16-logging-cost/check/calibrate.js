'use strict';
// Run in a plain Node process of its own (CheckContext.calibrator): the
// CPU time, on this machine now, of writing one order line as JSON, the
// unit (t) in which the check judges what logging adds per order line.

const { find } = require('../orders-db');

/**
 * µs of CPU per order line to JSON.stringify whole orders `ids`, the median
 * of `runs` passes after three untimed ones.
 */
function lineCost(ids, runs = 7) {
  const orders = ids.map(find).filter(Boolean);
  const lines = orders.reduce((n, o) => n + o.lines.length, 0);
  let sink = 0;
  const pass = () => {
    const start = process.cpuUsage();
    for (const order of orders) sink += JSON.stringify(order).length;
    const { user, system } = process.cpuUsage(start);
    return (user + system) / lines;
  };
  for (let i = 0; i < 3; i++) pass();
  const samples = Array.from({ length: runs }, pass).sort((a, b) => a - b);
  return { t: samples[Math.floor(runs / 2)], samples, lines, sink };
}

module.exports = { lineCost };
