'use strict';
// Reference fix for lab 03: /summary only ever needs a count and the latest
// reading, so that is all the app keeps. Memory stays flat however many
// readings are taken. (The lab's walkthrough compares this with a bounded
// buffer and with streaming readings to a file.)
const os = require('node:os');
const express = require('express');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

let total = 0;
let latest = null;
const app = express();

app.get('/record', (req, res) => {
  const entry = {
    timestamp: Date.now(),
    freeMemory: os.freemem(),
    totalMemory: os.totalmem(),
    uptime: os.uptime(),
  };
  total += 1;
  latest = entry;
  res.status(201).json(entry);
});

app.get('/summary', (req, res) => {
  res.json({ total, latest });
});

const server = app.listen(PORT, HOST, (err) => {
  if (err) throw err; // e.g. EADDRINUSE: another app is on this port
  const { port } = server.address();
  console.log(`Listening on http://${HOST}:${port}`);
});
