'use strict';
// The product catalogue of a small online shop. The supplier's system sends
// the whole catalogue as one JSON document to POST /import (every night, and
// whenever a buyer changes prices); the storefront reads one product at a
// time from GET /products/:sku.
const express = require('express');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

// The largest import the API accepts. A bigger body is refused with 413.
const MAX_IMPORT = '50mb';

const catalogue = new Map(); // sku → product
const app = express();

/** Why a product cannot be imported, or null when it can. */
function problemWith(product) {
  if (product === null || typeof product !== 'object') return 'not an object';
  if (typeof product.sku !== 'string' || product.sku === '') return 'no sku';
  if (typeof product.name !== 'string' || product.name.trim() === '') return 'no name';
  if (!Number.isInteger(product.priceCents) || product.priceCents < 0) return 'priceCents is not a whole number ≥ 0';
  if (!Number.isInteger(product.stock) || product.stock < 0) return 'stock is not a whole number ≥ 0';
  return null;
}

app.post('/import', express.json({ limit: MAX_IMPORT }), (req, res) => {
  const products = req.body?.products;
  if (!Array.isArray(products)) {
    return res.status(400).json({ error: 'expected a JSON body of the form {"products": [...]}' });
  }
  const summary = { received: products.length, imported: 0, rejected: 0, units: 0, valueCents: 0 };
  for (const product of products) {
    if (problemWith(product)) {
      summary.rejected++;
      continue;
    }
    catalogue.set(product.sku, product);
    summary.imported++;
    summary.units += product.stock;
    summary.valueCents += product.priceCents * product.stock;
  }
  res.json(summary);
});

app.get('/products/:sku', (req, res) => {
  const product = catalogue.get(req.params.sku);
  if (!product) return res.status(404).json({ error: `no product ${req.params.sku}` });
  res.json(product);
});

app.get('/health', (req, res) => {
  res.json({ status: 'ok' });
});

// The body parser's errors (a body over MAX_IMPORT, malformed JSON) as JSON.
app.use((err, req, res, next) => {
  const status = err.status || 500;
  if (status >= 500) console.error(err);
  const error = status === 413 ? `the import is larger than ${MAX_IMPORT}` : status < 500 ? err.message : 'internal error';
  res.status(status).json({ error });
});

const server = app.listen(PORT, HOST, (err) => {
  if (err) throw err; // e.g. EADDRINUSE: another app is on this port
  const { port } = server.address();
  console.log(`Listening on http://${HOST}:${port}`);
});
