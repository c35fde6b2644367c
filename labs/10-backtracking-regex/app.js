'use strict';
// The newsletter service of a small online shop. The sign-up box on every
// page of the shop posts an address to POST /subscribe; the storefront shows
// the latest issue from GET /newsletter/latest. Subscribers are kept in
// memory here (a database in production).
const express = require('express');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

// An address we can send to: words of letters and digits joined by single
// dots, underscores, plus signs or hyphens; an @; labels of letters, digits
// and hyphens, each followed by a dot; a top-level domain of two letters or
// more.
const EMAIL = /^([a-z0-9]+[._+-]?)*[a-z0-9]+@(([a-z0-9]+-*)*[a-z0-9]+\.)+[a-z]{2,}$/i;

// RFC 5321: at most 64 characters before the @, 254 in all. RFC 1035: at
// most 63 in a label of the domain.
const MAX_ADDRESS = 254;
const MAX_LOCAL_PART = 64;
const MAX_LABEL = 63;

function isEmailAddress(text) {
  if (text.length > MAX_ADDRESS) return false;
  if (!EMAIL.test(text)) return false;
  const [localPart, domain] = text.split('@');
  return localPart.length <= MAX_LOCAL_PART && domain.split('.').every((label) => label.length <= MAX_LABEL);
}

const LATEST_ISSUE = {
  issue: 42,
  title: 'Knitwear season',
  published: '2026-10-01',
  summary: 'Twelve new jumpers, a pattern for the long evenings, and 10% off wool until Sunday.',
};

const subscribers = new Set();
const app = express();

app.post('/subscribe', express.json({ limit: '2kb' }), (req, res) => {
  const email = req.body?.email;
  if (typeof email !== 'string') {
    return res.status(400).json({ error: 'expected a JSON body of the form {"email": "..."}' });
  }
  if (!isEmailAddress(email)) {
    return res.status(400).json({ error: 'that is not an e-mail address we can send to' });
  }
  const address = email.toLowerCase();
  if (subscribers.has(address)) return res.status(200).json({ subscribed: address, already: true });
  subscribers.add(address);
  res.status(201).json({ subscribed: address });
});

app.get('/newsletter/latest', (req, res) => {
  res.json(LATEST_ISSUE);
});

app.get('/health', (req, res) => {
  res.json({ status: 'ok' });
});

// A body that is not JSON, or too large, gets a JSON error too.
app.use((err, req, res, next) => {
  res.status(err.status || 500).json({ error: err.expose ? err.message : 'internal error' });
});

const server = app.listen(PORT, HOST, (err) => {
  if (err) throw err; // e.g. EADDRINUSE: another app is on this port
  const { port } = server.address();
  console.log(`Listening on http://${HOST}:${port}`);
});
