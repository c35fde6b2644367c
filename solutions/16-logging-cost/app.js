'use strict';
// The order service of a small coffee-equipment shop: customer service and
// the warehouse look orders up (GET /orders/:id: the order's customer,
// shipping, number of lines and total) in the database (orders-db.js). Its stdout is shipped by the platform's log collector,
// one JSON object a line, to where on-call engineers search it: every
// request's line carries its request id, route, status and time, and the
// order it was about (see the walkthrough's "The log contract").
//
// The reference fix: pino writes each line, serialised by its own fast
// JSON writer; a level that is off costs one comparison (pino replaces
// the method with a no-op), so the order is never formatted unless debug
// is on; the access line carries what an engineer searches for, not the
// whole order; and the lines go to stdout through sonic-boom without
// blocking the event loop (sync: false).
const crypto = require('node:crypto');
const express = require('express');
const pino = require('pino');
const db = require('../../labs/16-logging-cost/orders-db');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const logger = pino(
  { level: process.env.LOG_LEVEL || 'info' },
  // Asynchronous writes to fd 1, batched by sonic-boom; pino flushes what is
  // left when the process exits.
  pino.destination({ dest: 1, sync: false }),
);

const app = express();

// The access log: one line per request, written when the response is sent,
// with the fields the log contract asks for.
app.use((req, res, next) => {
  const started = process.hrtime.bigint();
  req.id = req.get('x-request-id') || crypto.randomUUID();
  res.on('finish', () => {
    logger.info(
      {
        reqId: req.id,
        method: req.method,
        url: req.originalUrl,
        statusCode: res.statusCode,
        responseTime: Number(process.hrtime.bigint() - started) / 1e6,
        ...res.locals.fields,
      },
      'request completed',
    );
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
  // Serialised only when debug is on: pino's debug() is a no-op at info.
  logger.debug({ order }, 'order read from the database');
  if (!order) {
    res.locals.fields = { orderId: req.params.id };
    return res.status(404).json({ error: `no order ${req.params.id}` });
  }
  const summary = summarize(order);
  res.locals.fields = { orderId: order.id, lines: summary.lines, totalCents: summary.totalCents };
  res.json(summary);
});

app.get('/health', (req, res) => {
  res.json({ status: 'ok' });
});

const server = app.listen(PORT, HOST, (err) => {
  if (err) throw err; // e.g. EADDRINUSE: another app is on this port
  const { port } = server.address();
  logger.info(`Listening on http://${HOST}:${port} (pid ${process.pid})`);
});
