'use strict';
// A tiny sign-up / sign-in service, after the Node.js "Profiling Node.js
// Applications" guide. Users are kept in memory; passwords are stored as a
// salted PBKDF2 hash.
const crypto = require('node:crypto');
const express = require('express');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const users = new Map();
const app = express();

function credentials(query) {
  const username = String(query.username || '').replace(/[^a-zA-Z0-9]/g, '');
  const password = String(query.password || '');
  return { username, password };
}

function hashPassword(password, salt) {
  return crypto.pbkdf2Sync(password, salt, 10000, 512, 'sha512');
}

app.get('/newUser', (req, res) => {
  const { username, password } = credentials(req.query);
  if (!username || !password || users.has(username)) {
    return res.sendStatus(400);
  }
  const salt = crypto.randomBytes(128).toString('base64');
  const hash = hashPassword(password, salt);
  users.set(username, { salt, hash });
  res.sendStatus(200);
});

app.get('/auth', (req, res) => {
  const { username, password } = credentials(req.query);
  if (!username || !password || !users.has(username)) {
    return res.sendStatus(400);
  }
  const { salt, hash } = users.get(username);
  const attempt = hashPassword(password, salt);
  if (crypto.timingSafeEqual(hash, attempt)) {
    res.sendStatus(200);
  } else {
    res.sendStatus(401);
  }
});

app.get('/health', (req, res) => {
  res.json({ status: 'ok' });
});

const server = app.listen(PORT, HOST, (err) => {
  if (err) throw err; // e.g. EADDRINUSE: another app is on this port
  const { port } = server.address();
  console.log(`Listening on http://${HOST}:${port}`);
});
