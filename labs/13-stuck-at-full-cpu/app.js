'use strict';
// TODO: the deliberately broken app the learner edits. Keep it small and
// realistic; the walkthrough explains what is wrong with it.
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
