'use strict';
// Lab 15's standard load (`workbook load 15`, the profilers, the captures):
// floor gateways posting their batches, 2000 readings each, from 10
// connections. The batches are drawn once, with a fixed seed, so every run
// sends the same ones (the check's own are new every time).

const { generator, makeBatch } = require('./batches');

const POOL = 64;
let pool = null;
const batches = () => (pool ??= Array.from({ length: POOL }, ((rand) => () => makeBatch(rand, { readings: 2000 }).text)(generator(15_2026))));

const standardLoad = {
  path: '/readings',
  // Each request of the load: the next batch of the pool, as a gateway posts it.
  request: (i) => ({ method: 'POST', path: '/readings', headers: { 'content-type': 'text/csv' }, body: batches()[i % POOL] }),
  connections: 10,
  duration: 10,
  describe: 'POST /readings, batches of 2000 readings (about 95 KB of CSV) from 10 connections',
  examples: ['/health'],
};

module.exports = { standardLoad };
