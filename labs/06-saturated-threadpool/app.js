'use strict';
// Sales reports: GET /export/:region sends a month of sales figures for one
// region as JSON, compressed with Brotli; GET /status tells the load balancer
// which build is running.
const fs = require('node:fs/promises');
const path = require('node:path');
const { promisify } = require('node:util');
const zlib = require('node:zlib');
const express = require('express');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);
const BUILD_FILE = path.join(__dirname, 'build.json');

const brotliCompress = promisify(zlib.brotliCompress);
const PRODUCTS = ['widget', 'gadget', 'sprocket', 'gizmo', 'flange', 'grommet'];

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
  // Brotli at its default quality, the smallest file it can make.
  const body = await brotliCompress(json);
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
