'use strict';
// The shop's backend for its storefront: GET /api/products/:id answers what
// a product page shows, from the catalogue service's record of the product.
// The catalogue is an internal HTTPS service whose certificate is signed by
// the company's own certificate authority (CA), so every call to it must
// trust that CA. catalog.js runs the catalogue for you.
//
// Prices and stock change at any moment: every request asks the catalogue.
//
// The fix: one agent for every call to the catalogue, made once when the
// app starts, with keepAlive on. It keeps the connections it opened after
// their answer, and the next call goes out on one of them: no TCP connect,
// no TLS handshake, no new secure context. The CA is given to that agent
// once. maxSockets bounds the connections open to the catalogue at once;
// a call beyond it waits for a free one. timeout closes a connection that
// has been idle for 4 s, before the catalogue would (see below).
const https = require('node:https');
const express = require('express');
const { startCatalog } = require('../../labs/12-tls-per-call/catalog');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);
const TIMEOUT_MS = Number(process.env.CATALOG_TIMEOUT_MS ?? 2000);

let catalog; // { url, agent }: where the catalogue is, and the one agent that calls it

/** GET a path of the catalogue: resolves to its status and body. */
function catalogGet(path) {
  return new Promise((resolve, reject) => {
    const req = https.get(new URL(path, catalog.url), { agent: catalog.agent, timeout: TIMEOUT_MS }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    req.on('error', reject);
  });
}

/** What a product page needs of the catalogue's record. */
function productPage(record) {
  return {
    id: record.id,
    name: record.name,
    price: `${(record.priceCents / 100).toFixed(2)} ${record.currency}`,
    inStock: record.stock > 0,
  };
}

const app = express();

app.get('/api/products/:id', async (req, res) => {
  const { id } = req.params;
  if (!/^\d{1,9}$/.test(id)) {
    res.status(400).json({ error: 'id must be a number' });
    return;
  }
  let answer;
  try {
    answer = await catalogGet(`/v1/products/${id}`);
  } catch (err) {
    console.error(`catalogue call for product ${id}: ${err.message}`);
    res.status(502).json({ error: 'the catalogue could not be reached' });
    return;
  }
  if (answer.status === 404) {
    res.status(404).json({ error: 'no such product' });
    return;
  }
  if (answer.status !== 200) {
    res.status(502).json({ error: `the catalogue answered ${answer.status}` });
    return;
  }
  res.json(productPage(JSON.parse(answer.body)));
});

app.get('/health', (req, res) => res.json({ status: 'ok' }));

startCatalog().then(({ url, ca }) => {
  // Node's default agent trusts the public CAs only: this one trusts ours,
  // and keeps its connections open for the next call. The catalogue (a Node
  // server) keeps an idle connection for 5 s (it says so: Keep-Alive:
  // timeout=5) and closes it soon after; a call sent on one just as it
  // closes fails (ECONNRESET). With `timeout` the agent closes an idle
  // connection first: after 4 s, or after the announced time less a second
  // if that is shorter. Without it, Node's agent keeps an idle connection
  // until the catalogue closes it.
  const agent = new https.Agent({ ca, keepAlive: true, maxSockets: 32, timeout: 4000 });
  catalog = { url, agent };
  const server = app.listen(PORT, HOST, (err) => {
    if (err) throw err; // e.g. EADDRINUSE: another app is on this port
    const { port } = server.address();
    console.log(`Listening on http://${HOST}:${port}`);
  });
});
