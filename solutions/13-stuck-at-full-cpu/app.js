'use strict';
// TODO: the reference fix of lab's app.js.
const express = require('express');

const app = express();

app.get('/work', (req, res) => {
  res.json({ ok: true });
});

app.get('/health', (req, res) => res.send('ok'));

const host = process.env.HOST || '127.0.0.1';
const port = Number(process.env.PORT ?? 3000);
const server = app.listen(port, host, () => {
  console.log(`Listening on http://${host}:${server.address().port}`);
});
