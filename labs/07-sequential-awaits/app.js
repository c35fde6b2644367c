'use strict';
// A dashboard API: GET /dashboard/:userId gathers a user's profile, recent
// orders and recommendations from three downstream services and sends them
// back in one response. services.js runs the three services for you; each
// answers after DOWNSTREAM_DELAY_MS (40 ms unless set).
const express = require('express');
const { startServices } = require('./services');

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
  const profile = await getJson(`${services.profile}/users/${userId}`);
  const orders = await getJson(`${services.orders}/users/${userId}`);
  const recommendations = await getJson(`${services.recommendations}/users/${userId}`);
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
