'use strict';
// The order history of a small online shop. The checkout and the
// marketplace connector import orders in batches (POST /orders);
// accounting exports a period (GET /orders?from=…&to=…) and customer
// service reads a customer's history (GET /customers/:customer/orders).
// The orders live in orders-store.js, the database's stand-in, which
// answers at most 1000 rows a query: every read goes page by page.
//
// The fix: the cursor is the last row's whole position, (placedAt, id),
// which no other row shares, and each page starts strictly after it. The
// cursor then moves forward on every page, whatever the data: a full page
// of orders placed at one instant is followed by the rest of that instant.
// And the loop is bounded: a correct read never needs more pages than the
// table holds, so more than that is a bug, reported as an error (500)
// rather than a process that stops answering.
const express = require('express');
const { OrdersStore } = require('../../labs/13-stuck-at-full-cpu/orders-store');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const PAGE_SIZE = 500;
// No request may take longer than this: the load balancer gives up at 15 s.
const REQUEST_DEADLINE_MS = 10_000;

const store = new OrdersStore();

/**
 * Every order matching `filter` ({ from, to, customer }), oldest first,
 * read page by page. Each page starts after the last row of the page
 * before, in (placedAt, id) order: no row is read twice, none is skipped.
 */
function readAll(filter) {
  const orders = [];
  // One page more than the whole table fills: a read that needs more is not moving.
  const maxPages = Math.ceil(store.size / PAGE_SIZE) + 1;
  let after = null;
  for (let pages = 1; pages <= maxPages; pages++) {
    const start = after ? { startAfter: after } : { startAt: filter.from };
    const page = store.find({ ...start, before: filter.to, customer: filter.customer, limit: PAGE_SIZE });
    for (const order of page) orders.push(order);
    if (page.length < PAGE_SIZE) return orders;
    const last = page[page.length - 1];
    after = { placedAt: last.placedAt, id: last.id };
  }
  throw new Error(`readAll read ${maxPages} pages, more than the table holds: its cursor is not advancing`);
}

// An ISO 8601 date and time with its time zone, e.g. 2026-03-14T09:26:53.589Z.
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

function parseTime(text) {
  if (typeof text !== 'string' || !TIMESTAMP.test(text)) return NaN;
  return Date.parse(text);
}

const isName = (value) => typeof value === 'string' && value.length > 0 && value.length <= 64;

/** The order as stored, or a sentence on what is wrong with it. */
function parseOrder(order, i) {
  if (!order || typeof order !== 'object') return { error: `order ${i} is not an object` };
  const { id, customer, placedAt, total } = order;
  if (!isName(id)) return { error: `order ${i}: id must be a string of 1 to 64 characters` };
  if (!isName(customer)) return { error: `order ${i}: customer must be a string of 1 to 64 characters` };
  const at = parseTime(placedAt);
  if (Number.isNaN(at)) return { error: `order ${i}: placedAt must be an ISO 8601 time with a time zone, e.g. 2026-03-14T09:26:53.589Z` };
  if (typeof total !== 'number' || !Number.isFinite(total) || total < 0) return { error: `order ${i}: total must be a number, 0 or more` };
  return { order: { id, customer, placedAt: at, total } };
}

const asJson = (order) => ({ id: order.id, customer: order.customer, placedAt: new Date(order.placedAt).toISOString(), total: order.total });

const app = express();

app.use((req, res, next) => {
  const timer = setTimeout(() => {
    if (!res.headersSent) res.status(503).json({ error: `no answer within ${REQUEST_DEADLINE_MS / 1000} s` });
  }, REQUEST_DEADLINE_MS);
  res.on('close', () => clearTimeout(timer));
  next();
});

app.post('/orders', express.json({ limit: '5mb' }), (req, res) => {
  const batch = req.body?.orders;
  if (!Array.isArray(batch)) return res.status(400).json({ error: 'expected a JSON body of the form {"orders": [...]}' });
  const orders = [];
  for (let i = 0; i < batch.length; i++) {
    const { order, error } = parseOrder(batch[i], i);
    if (error) return res.status(400).json({ error });
    orders.push(order);
  }
  const imported = store.insert(orders);
  res.status(201).json({ imported, skipped: orders.length - imported });
});

app.get('/orders', (req, res) => {
  const from = parseTime(req.query.from);
  const to = parseTime(req.query.to);
  if (Number.isNaN(from) || Number.isNaN(to) || from >= to) {
    return res.status(400).json({ error: 'from and to must be ISO 8601 times with a time zone, from before to' });
  }
  const orders = readAll({ from, to });
  res.json({ from: new Date(from).toISOString(), to: new Date(to).toISOString(), count: orders.length, orders: orders.map(asJson) });
});

app.get('/customers/:customer/orders', (req, res) => {
  const { customer } = req.params;
  const orders = readAll({ customer });
  res.json({ customer, count: orders.length, orders: orders.map(asJson) });
});

app.get('/health', (req, res) => {
  res.json({ status: 'ok' });
});

// A body that is not JSON, or too large, gets a JSON error too. An error
// of our own (a read that hit its bound) is logged: it is a bug to fix.
app.use((err, req, res, next) => {
  if (!err.status) console.error(err);
  res.status(err.status || 500).json({ error: err.expose ? err.message : 'internal error' });
});

const server = app.listen(PORT, HOST, (err) => {
  if (err) throw err; // e.g. EADDRINUSE: another app is on this port
  const { port } = server.address();
  console.log(`Listening on http://${HOST}:${port} (pid ${process.pid})`);
});
