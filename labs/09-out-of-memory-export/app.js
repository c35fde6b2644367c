'use strict';
// The orders service of a small online shop. The checkout posts each new
// order to POST /orders; finance, the warehouse and the marketplaces
// download orders from GET /orders/export, as CSV or JSON, for any range of
// dates (their nightly jobs all start at 3 a.m.). The orders live in the
// shop's database (orders-db.js, its driver).
const express = require('express');
const { orders } = require('./orders-db');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const app = express();

const CSV_COLUMNS = ['id', 'placedAt', 'customerId', 'customerName', 'email', 'street', 'postcode', 'city', 'country', 'items', 'totalCents', 'currency', 'status'];
const CSV_HEADER = 'id,placed_at,customer_id,customer_name,email,street,postcode,city,country,items,total,currency,status\n';

/** One field of a CSV line, quoted when it must be (RFC 4180). */
function csvField(value) {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One order as a line of the CSV export; the total in units of its currency. */
function csvLine(order) {
  const fields = CSV_COLUMNS.map((column) => (column === 'totalCents' ? (order.totalCents / 100).toFixed(2) : order[column]));
  return `${fields.map(csvField).join(',')}\n`;
}

/** The export's query (?from=YYYY-MM-DD&to=YYYY-MM-DD&format=csv|json), or a reason to refuse it. */
function exportQuery(query) {
  const { from, to, format = 'csv' } = query;
  const day = /^\d{4}-\d{2}-\d{2}$/;
  if (typeof from !== 'string' || !day.test(from) || Number.isNaN(Date.parse(from))) return { error: 'from must be a date, YYYY-MM-DD' };
  if (to !== undefined && (typeof to !== 'string' || !day.test(to) || Number.isNaN(Date.parse(to)))) return { error: 'to must be a date, YYYY-MM-DD' };
  if (to !== undefined && to < from) return { error: 'to must not be before from' };
  if (format !== 'csv' && format !== 'json') return { error: 'format must be csv or json' };
  return { from, to, format };
}

app.get('/orders/export', async (req, res) => {
  const query = exportQuery(req.query);
  if (query.error) return res.status(400).json({ error: query.error });
  const { from, to, format } = query;
  const rows = await orders.find({ from, to }).toArray();
  res.attachment(`orders-${from}-${to ?? 'now'}.${format}`);
  if (format === 'json') return res.json(rows);
  res.type('csv').send(CSV_HEADER + rows.map(csvLine).join(''));
});

/** Why an order cannot be accepted, or null when it can. */
function problemWith(order) {
  if (order === null || typeof order !== 'object') return 'expected a JSON object';
  if (typeof order.customerId !== 'string' || !/^C-\d{5}$/.test(order.customerId)) return 'customerId must look like C-00042';
  if (typeof order.customerName !== 'string' || !order.customerName.trim()) return 'customerName is missing';
  for (const field of ['email', 'street', 'postcode', 'city']) {
    if (typeof order[field] !== 'string' || !order[field].trim()) return `${field} is missing`;
  }
  if (typeof order.country !== 'string' || !/^[A-Z]{2}$/.test(order.country)) return 'country must be two capital letters';
  if (!Number.isInteger(order.items) || order.items < 1) return 'items must be a whole number ≥ 1';
  if (!Number.isInteger(order.totalCents) || order.totalCents < 0) return 'totalCents must be a whole number ≥ 0';
  if (typeof order.currency !== 'string' || !/^[A-Z]{3}$/.test(order.currency)) return 'currency must be three capital letters';
  return null;
}

app.post('/orders', express.json(), (req, res) => {
  const problem = problemWith(req.body);
  if (problem) return res.status(400).json({ error: problem });
  const { customerId, customerName, email, street, postcode, city, country, items, totalCents, currency } = req.body;
  res.status(201).json(orders.insert({ customerId, customerName, email, street, postcode, city, country, items, totalCents, currency }));
});

app.get('/health', (req, res) => {
  res.json({ status: 'ok' });
});

const server = app.listen(PORT, HOST, (err) => {
  if (err) throw err; // e.g. EADDRINUSE: another app is on this port
  const { port } = server.address();
  console.log(`Listening on http://${HOST}:${port}`);
});
