'use strict';
// Reference fix for lab 05: the same cache, bounded. lru-cache keeps at most
// 500 quotes (the service's memory budget) and, when a new quote would make
// it 501, drops the one used least recently. Hot quotes stay; a stream of
// one-off products cycles through the cache instead of piling up in it.
// Everything else is as in the starter.
const express = require('express');
const { LRUCache } = require('lru-cache');
// The pricing model belongs to the lab: this resolves to
// labs/05-unbounded-cache/pricing.js from solutions/ and from labs/.
const { priceQuote, invalidQuery } = require('../../labs/05-unbounded-cache/pricing');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const quotes = new LRUCache({ max: 500 });
const app = express();

function quoteFor(product, region, currency) {
  const key = `${product}|${region}|${currency}`;
  let quote = quotes.get(key);
  if (quote === undefined) {
    quote = priceQuote(product, region, currency);
    quotes.set(key, quote);
  }
  return quote;
}

app.get('/quote', (req, res) => {
  const problem = invalidQuery(req.query);
  if (problem) return res.status(400).json({ error: problem });
  const { product, region, currency } = req.query;
  res.json(quoteFor(product, region, currency));
});

app.get('/health', (req, res) => {
  res.json({ ok: true });
});

const server = app.listen(PORT, HOST, (err) => {
  if (err) throw err; // e.g. EADDRINUSE: another app is on this port
  const { port } = server.address();
  console.log(`Listening on http://${HOST}:${port}`);
});
