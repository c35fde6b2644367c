'use strict';
// The order service of a small coffee-equipment shop: customer service and
// the warehouse look orders up (GET /orders/:id: the order's customer,
// shipping, number of lines and total) in the database (orders-db.js). Its stdout is shipped by the platform's log collector,
// one JSON object a line, to where on-call engineers search it: every
// request's line carries its request id, route, status and time, and the
// order it was about (see the walkthrough's "The log contract").
const util = require('node:util');
const crypto = require('node:crypto');
const express = require('express');
const db = require('./orders-db');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

// The shop's own little logger: a level, and a JSON line per entry on stdout.
const LEVELS = { debug: 20, info: 30, warn: 40, error: 50 };
const LOG_LEVEL = LEVELS[process.env.LOG_LEVEL] ? process.env.LOG_LEVEL : 'info';

function log(level, msg, fields = {}) {
  if (LEVELS[level] < LEVELS[LOG_LEVEL]) return;
  console.log(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }));
}

// printf-style, for the details one needs when debugging: objects in full
// (every level of nesting, every item of an array), on one line.
const INSPECT = { depth: null, maxArrayLength: null, breakLength: Infinity };
function debug(format, ...args) {
  log('debug', util.formatWithOptions(INSPECT, format, ...args));
}

const app = express();

// The access log: one line per request, written when the response is sent,
// with everything that could help whoever reads it later.
app.use((req, res, next) => {
  const started = process.hrtime.bigint();
  req.id = req.get('x-request-id') || crypto.randomUUID();
  res.on('finish', () => {
    log('info', 'request completed', {
      reqId: req.id,
      method: req.method,
      url: req.originalUrl,
      statusCode: res.statusCode,
      responseTime: Number(process.hrtime.bigint() - started) / 1e6,
      req: { headers: req.headers, params: req.params, query: req.query },
      res: { headers: res.getHeaders(), body: res.locals.body },
      ...res.locals.fields,
    });
  });
  next();
});

/** What the order service answers: the order without its lines, with their count and total. */
function summarize(order) {
  const totalCents = order.lines.reduce((sum, line) => sum + line.quantity * line.unitPriceCents, 0);
  return { id: order.id, customer: order.customer, placedAt: order.placedAt, shipping: order.shipping, lines: order.lines.length, totalCents };
}

app.get('/orders/:id', (req, res) => {
  const order = db.find(req.params.id);
  debug('order %s read from the database: %O', req.params.id, order);
  if (!order) {
    res.locals.fields = { orderId: req.params.id };
    return res.status(404).json({ error: `no order ${req.params.id}` });
  }
  const summary = summarize(order);
  res.locals.body = summary;
  // The whole order, lines and all, for whoever investigates it later.
  res.locals.fields = { orderId: order.id, lines: summary.lines, totalCents: summary.totalCents, order };
  res.json(summary);
});

app.get('/health', (req, res) => {
  res.json({ status: 'ok' });
});

const server = app.listen(PORT, HOST, (err) => {
  if (err) throw err; // e.g. EADDRINUSE: another app is on this port
  const { port } = server.address();
  log('info', `Listening on http://${HOST}:${port} (pid ${process.pid})`);
});
