'use strict';
// A dashboard API: GET /dashboard/:userId gathers a user's profile, recent
// orders and recommendations from three downstream services and sends them
// back in one response. services.js runs the three services for you; each
// answers after DOWNSTREAM_DELAY_MS (40 ms unless set).
//
// A dashboard is still worth showing when one service is down: a call that
// fails, or has not answered within DOWNSTREAM_TIMEOUT_MS (1000 unless
// set), leaves its part null and is named in `missing`. Only when all three
// fail is the answer an error (502).
const express = require('express');
const { startServices } = require('./services');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);
const TIMEOUT_MS = Number(process.env.DOWNSTREAM_TIMEOUT_MS ?? 1000);

let services; // the services' base URLs, known before the app listens

async function getJson(url) {
  const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

/** One part of a dashboard: the service's answer, or null if it failed or was too slow. */
async function part(name, userId) {
  try {
    return await getJson(`${services[name]}/users/${userId}`);
  } catch (err) {
    console.error(`${name} for user ${userId}: ${err.message}`);
    return null;
  }
}

const app = express();

app.get('/dashboard/:userId', async (req, res) => {
  const { userId } = req.params;
  if (!/^\d{1,9}$/.test(userId)) {
    res.status(400).json({ error: 'userId must be a number' });
    return;
  }
  const profile = await part('profile', userId);
  const orders = await part('orders', userId);
  const recommendations = await part('recommendations', userId);
  const dashboard = { profile, orders, recommendations };
  const missing = Object.keys(dashboard).filter((name) => dashboard[name] === null);
  if (missing.length === 3) {
    res.status(502).json({ error: 'no downstream service answered' });
    return;
  }
  res.json(missing.length ? { ...dashboard, missing } : dashboard);
});

startServices().then((urls) => {
  services = urls;
  const server = app.listen(PORT, HOST, (err) => {
    if (err) throw err; // e.g. EADDRINUSE: another app is on this port
    const { port } = server.address();
    console.log(`Listening on http://${HOST}:${port}`);
  });
});
