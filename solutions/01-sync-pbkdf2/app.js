'use strict';
// Reference fix for lab 01: the same service, with the PBKDF2 work moved off
// the event loop onto libuv's thread pool.
const crypto = require('node:crypto');
const { promisify } = require('node:util');
const express = require('express');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const pbkdf2 = promisify(crypto.pbkdf2);
const users = new Map();
const app = express();

function credentials(query) {
  const username = String(query.username || '').replace(/[^a-zA-Z0-9]/g, '');
  const password = String(query.password || '');
  return { username, password };
}

function hashPassword(password, salt) {
  // Same parameters as before: only *where* the work runs changes.
  return pbkdf2(password, salt, 10000, 512, 'sha512');
}

// Express 5 forwards a rejected promise from an async handler to the error
// handler below, so a failed hash becomes a 500 instead of a crash.
app.get('/newUser', async (req, res) => {
  const { username, password } = credentials(req.query);
  if (!username || !password || users.has(username)) {
    return res.sendStatus(400);
  }
  const salt = crypto.randomBytes(128).toString('base64');
  // Reserve the name before awaiting so two concurrent sign-ups of the same
  // user cannot both succeed.
  users.set(username, null);
  try {
    users.set(username, { salt, hash: await hashPassword(password, salt) });
  } catch (err) {
    users.delete(username);
    throw err;
  }
  res.sendStatus(200);
});

app.get('/auth', async (req, res) => {
  const { username, password } = credentials(req.query);
  const user = users.get(username);
  if (!username || !password || !user) {
    return res.sendStatus(400);
  }
  const attempt = await hashPassword(password, user.salt);
  res.sendStatus(crypto.timingSafeEqual(user.hash, attempt) ? 200 : 401);
});

app.get('/health', (req, res) => {
  res.json({ status: 'ok' });
});

app.use((err, req, res, next) => {
  console.error(`${req.method} ${req.path} failed: ${err.message}`);
  res.sendStatus(500);
});

const server = app.listen(PORT, HOST, (err) => {
  if (err) throw err; // e.g. EADDRINUSE: another app is on this port
  const { port } = server.address();
  console.log(`Listening on http://${HOST}:${port}`);
});
