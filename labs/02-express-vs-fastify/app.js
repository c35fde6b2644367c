'use strict';
// The shop's JSON API: a product catalogue (/items) beside the usual
// resources of an online shop, each with the same create / read / update /
// delete routes. Data lives in memory; the catalogue is generated at start-up.
const crypto = require('node:crypto');
const express = require('express');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const RESOURCES = [
  'users', 'accounts', 'sessions', 'addresses', 'orders', 'invoices',
  'payments', 'refunds', 'carts', 'wishlists', 'categories', 'reviews',
  'shipments', 'warehouses', 'suppliers', 'coupons',
];

// 1000 catalogue items with stable, made-up names and prices.
const ADJECTIVES = ['Small', 'Large', 'Blue', 'Red', 'Steel', 'Oak', 'Quiet', 'Rapid'];
const NOUNS = ['Lamp', 'Chair', 'Kettle', 'Desk', 'Shelf', 'Mug', 'Clock', 'Rug', 'Fan'];
const catalogue = Array.from({ length: 1000 }, (_, i) => ({
  id: i + 1,
  name: `${ADJECTIVES[i % ADJECTIVES.length]} ${NOUNS[i % NOUNS.length]} ${i + 1}`,
  price: (((i * 7919) % 20000) + 99) / 100,
}));

const app = express();
app.use(express.json({ limit: '100kb' }));

// Every response carries a request id, so support can trace a complaint.
app.use((req, res, next) => {
  req.id = req.get('x-request-id') || crypto.randomUUID();
  res.set('x-request-id', req.id);
  next();
});

// Security and caching headers for an API that serves browsers too.
app.use((req, res, next) => {
  res.set({
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  });
  next();
});

// Let the shop's front end, on its own origin, call the API.
app.use((req, res, next) => {
  res.set('access-control-allow-origin', 'https://shop.example');
  res.set('vary', 'Origin');
  next();
});

// Response times per route, for the metrics endpoint.
const timings = new Map();
app.use((req, res, next) => {
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const key = `${req.method} ${req.route ? req.route.path : 'unmatched'}`;
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const entry = timings.get(key) || { count: 0, totalMs: 0 };
    entry.count += 1;
    entry.totalMs += ms;
    timings.set(key, entry);
  });
  next();
});

function badRequest(res, message) {
  res.status(400).json({ error: 'bad_request', message });
}

function notFound(req, res) {
  res.status(404).json({ error: 'not_found', message: `No route for ${req.method} ${req.path}` });
}

// The same six routes for every resource, over an in-memory store.
for (const name of RESOURCES) {
  const store = new Map();
  let nextId = 1;
  const find = (req, res) => {
    const record = store.get(Number(req.params.id));
    if (!record) notFound(req, res);
    return record;
  };

  app.get(`/${name}`, (req, res) => {
    res.json([...store.values()]);
  });
  app.get(`/${name}/:id`, (req, res) => {
    const record = find(req, res);
    if (record) res.json(record);
  });
  app.post(`/${name}`, (req, res) => {
    if (!req.body || typeof req.body !== 'object' || Array.isArray(req.body)) {
      return badRequest(res, 'body must be a JSON object');
    }
    const record = { ...req.body, id: nextId++ };
    store.set(record.id, record);
    res.status(201).json(record);
  });
  app.put(`/${name}/:id`, (req, res) => {
    if (!find(req, res)) return;
    const record = { ...req.body, id: Number(req.params.id) };
    store.set(record.id, record);
    res.json(record);
  });
  app.patch(`/${name}/:id`, (req, res) => {
    const record = find(req, res);
    if (!record) return;
    Object.assign(record, req.body, { id: record.id });
    res.json(record);
  });
  app.delete(`/${name}/:id`, (req, res) => {
    if (!find(req, res)) return;
    store.delete(Number(req.params.id));
    res.status(204).end();
  });
}

app.get('/metrics', (req, res) => {
  res.json(Object.fromEntries(timings));
});

app.get('/items', (req, res) => {
  const limit = req.query.limit === undefined ? 20 : Number(req.query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    return badRequest(res, 'limit must be an integer from 1 to 100');
  }
  res.json(catalogue.slice(0, limit));
});

app.get('/items/:id', (req, res) => {
  const item = catalogue[Number(req.params.id) - 1];
  if (!item) return notFound(req, res);
  res.json(item);
});

app.get('/', (req, res) => {
  res.json({ hello: 'world' });
});

app.use(notFound);

// Malformed JSON and other errors: JSON, like every other answer.
app.use((err, req, res, next) => {
  const status = err.status >= 400 && err.status < 500 ? err.status : 500;
  const message = err.type === 'entity.parse.failed' ? 'body is not valid JSON' : err.message;
  res.status(status).json({ error: status === 400 ? 'bad_request' : 'error', message });
});

const server = app.listen(PORT, HOST, (err) => {
  if (err) throw err; // e.g. EADDRINUSE: another app is on this port
  const { port } = server.address();
  console.log(`Listening on http://${HOST}:${port}`);
});
