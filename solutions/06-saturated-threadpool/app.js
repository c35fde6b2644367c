'use strict';
// Reference fix for lab 06: at most EXPORTS_AT_ONCE compressions wait on
// libuv's thread pool at any moment, so a pool thread is always free for
// the file reads of /status (and every other fs, dns.lookup, crypto and zlib
// call in the process). Exports beyond the limit queue here, in JavaScript,
// where they cost nothing but memory. Everything else is as in the starter.
const fs = require('node:fs/promises');
const path = require('node:path');
const { promisify } = require('node:util');
const zlib = require('node:zlib');
const express = require('express');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);
// The build file belongs to the lab: this resolves to
// labs/06-saturated-threadpool/build.json from solutions/ and from labs/.
const BUILD_FILE = path.join(__dirname, '..', '..', 'labs', '06-saturated-threadpool', 'build.json');

const brotliCompress = promisify(zlib.brotliCompress);
const PRODUCTS = ['widget', 'gadget', 'sprocket', 'gizmo', 'flange', 'grommet'];

/**
 * How many threads libuv's pool has, from UV_THREADPOOL_SIZE read the way
 * libuv reads it, once, when the pool starts (init_threads in its
 * src/threadpool.c): unset, 4; set, C's atoi of it (the whole number it
 * starts with: "8x" is 8, "" and "abc" are 0), kept as an unsigned int (so a
 * negative number is huge), then 0 becomes 1 and anything over 1024 is 1024.
 * libuv 1.52 and later also ignore a value of 16 characters or more.
 */
function threadPoolSize(value = process.env.UV_THREADPOOL_SIZE) {
  const [major, minor] = process.versions.uv.split('.').map(Number);
  if (value === undefined || (value.length >= 16 && (major > 1 || minor >= 52))) return 4;
  const number = /^[ \t\n\v\f\r]*([+-]?\d+)/.exec(value);
  const threads = number ? Number(number[1]) : 0;
  if (threads < 0 || threads > 1024) return 1024;
  return Math.max(threads, 1);
}
const POOL_SIZE = threadPoolSize();
const EXPORTS_AT_ONCE = Math.max(1, POOL_SIZE - 1);

/** Runs at most `limit` of the functions given to it at once; the rest wait their turn. */
function concurrencyLimit(limit) {
  let running = 0;
  const waiting = [];
  const startNext = () => {
    if (running >= limit || waiting.length === 0) return;
    running++;
    const { fn, resolve, reject } = waiting.shift();
    fn()
      .then(resolve, reject)
      .finally(() => {
        running--;
        startNext();
      });
  };
  return (fn) =>
    new Promise((resolve, reject) => {
      waiting.push({ fn, resolve, reject });
      startNext();
    });
}
const compressSlot = concurrencyLimit(EXPORTS_AT_ONCE);

/** A month of daily sales for `region`: the same region always gives the same figures. */
function salesReport(region) {
  let seed = 2166136261;
  for (const ch of region) seed = Math.imul(seed ^ ch.codePointAt(0), 16777619) >>> 0;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const rows = [];
  for (let day = 1; day <= 30; day++) {
    const date = `2026-09-${String(day).padStart(2, '0')}`;
    for (const product of PRODUCTS) {
      rows.push({ date, region, product, units: Math.floor(next() * 500), revenue: Math.round(next() * 1e6) / 100 });
    }
  }
  return { region, month: '2026-09', rows };
}

const app = express();

app.get('/export/:region', async (req, res) => {
  const json = JSON.stringify(salesReport(req.params.region));
  // Brotli at its default quality, the smallest file it can make; never more
  // than EXPORTS_AT_ONCE of them on the pool.
  const body = await compressSlot(() => brotliCompress(json));
  res.set({ 'content-type': 'application/json', 'content-encoding': 'br' });
  res.send(body);
});

app.get('/status', async (req, res) => {
  const build = JSON.parse(await fs.readFile(BUILD_FILE, 'utf8'));
  res.json({ status: 'ok', version: build.version, commit: build.commit, uptime: Math.round(process.uptime()) });
});

const server = app.listen(PORT, HOST, (err) => {
  if (err) throw err; // e.g. EADDRINUSE: another app is on this port
  const { port } = server.address();
  console.log(`Listening on http://${HOST}:${port}`);
});
