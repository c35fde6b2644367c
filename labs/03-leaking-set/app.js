'use strict';
// A tiny system monitor: every call to /record takes a reading of the
// machine's memory and uptime (as in the Node.js memory guide), and /summary
// reports how many readings were taken and the latest one.
const os = require('node:os');
const express = require('express');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const entries = new Set();
const app = express();

app.get('/record', (req, res) => {
  const entry = {
    timestamp: Date.now(),
    freeMemory: os.freemem(),
    totalMemory: os.totalmem(),
    uptime: os.uptime(),
  };
  entries.add(entry);
  res.status(201).json(entry);
});

app.get('/summary', (req, res) => {
  const latest = [...entries].at(-1) ?? null;
  res.json({ total: entries.size, latest });
});

const server = app.listen(PORT, HOST, (err) => {
  if (err) throw err; // e.g. EADDRINUSE: another app is on this port
  const { port } = server.address();
  console.log(`Listening on http://${HOST}:${port}`);
});
