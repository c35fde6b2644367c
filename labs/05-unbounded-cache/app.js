'use strict';
// A price-quote service: GET /quote?product=…&region=…&currency=… prices a
// product with the pricing model in pricing.js, which takes a millisecond
// or two of CPU per quote. A quote never changes for the same
// product, region and currency, so each one is kept and served again the
// next time it is asked for. The service's memory budget allows the cache
// at most 500 quotes.
const express = require('express');
const { priceQuote, invalidQuery } = require('./pricing');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const quotes = new Map();
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
