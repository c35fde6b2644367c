'use strict';
// A dashboard API: GET /dashboard/:userId gathers a user's profile, recent
// orders and recommendations from three downstream services and sends them
// back in one response. services.js runs the three services for you; each
// answers after DOWNSTREAM_DELAY_MS (40 ms unless set).
//
// The fix: the three calls do not depend on each other, so the handler
// starts all three at once and waits for them together with Promise.all.
// A dashboard now takes as long as the slowest call, not the sum of all three.
const express = require('express');
const { startServices } = require('../../labs/07-sequential-awaits/services');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

let services; // the services' base URLs, known before the app listens

async function getJson(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

const app = express();

app.get('/dashboard/:userId', async (req, res) => {
  const { userId } = req.params;
  if (!/^\d{1,9}$/.test(userId)) {
    res.status(400).json({ error: 'userId must be a number' });
    return;
  }
  const [profile, orders, recommendations] = await Promise.all([
    getJson(`${services.profile}/users/${userId}`),
    getJson(`${services.orders}/users/${userId}`),
    getJson(`${services.recommendations}/users/${userId}`),
  ]);
  res.json({ profile, orders, recommendations });
});

startServices().then((urls) => {
  services = urls;
  const server = app.listen(PORT, HOST, (err) => {
    if (err) throw err; // e.g. EADDRINUSE: another app is on this port
    const { port } = server.address();
    console.log(`Listening on http://${HOST}:${port}`);
  });
});
