'use strict';
// What GET /orders/export must send, byte for byte, as the walkthrough's
// "The API" states it, written here independently of app.js. The orders come
// from the lab's database driver as shipped (orders-db.js, loaded from the
// file the check names), plus the orders the check itself posted; the
// expected exports are hashed in a plain Node process beside the check
// (calls from the check go through startInChild), so building them costs
// the app nothing and the check's own process little.

const crypto = require('node:crypto');

const CSV_HEADER = 'id,placed_at,customer_id,customer_name,email,street,postcode,city,country,items,total,currency,status\n';
const CSV_FIELDS = ['id', 'placedAt', 'customerId', 'customerName', 'email', 'street', 'postcode', 'city', 'country', 'items', 'total', 'currency', 'status'];

/** RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled. */
function csvField(value) {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvLine(order) {
  return `${CSV_FIELDS.map((f) => csvField(f === 'total' ? (order.totalCents / 100).toFixed(2) : order[f])).join(',')}\n`;
}

/** The export of `orders` in `format`, as one string. */
function exportText(orders, format) {
  if (format === 'json') return `[${orders.map((o) => JSON.stringify(o)).join(',')}]`;
  return CSV_HEADER + orders.map(csvLine).join('');
}

/** The first `n` and last `n` bytes of a Buffer, as text (for saying where two exports differ). */
function ends(buffer, n = 240) {
  return { head: buffer.subarray(0, n).toString('utf8'), tail: buffer.subarray(Math.max(0, buffer.length - n)).toString('utf8') };
}

/**
 * The orders an export of [from, to) holds: the history from the shipped
 * driver, then the posted orders in the range (they were placed after the
 * history, in the order they were posted).
 */
async function ordersIn(table, posted, { from, to }) {
  const history = await table.find({ from, ...(to ? { to } : {}) }).toArray();
  const fromMs = Date.parse(from);
  const toMs = to ? Date.parse(to) : Infinity;
  return [...history, ...posted.filter((o) => Date.parse(o.placedAt) >= fromMs && Date.parse(o.placedAt) < toMs)];
}

/**
 * Runs in a child process: the length, SHA-256 and ends of each export.
 * @param {string} driverFile the shipped orders-db.js, copied where the check can load it
 * @param {Array<{from:string, to?:string, format:'csv'|'json'}>} requests
 * @param {object[]} posted the orders the check posted, as the app stored them
 */
async function expectedExports(driverFile, requests, posted) {
  const { OrdersTable } = require(driverFile);
  const table = new OrdersTable(); // the history only: the posted orders are added from `posted`
  const results = [];
  for (const request of requests) {
    const bytes = Buffer.from(exportText(await ordersIn(table, posted, request), request.format), 'utf8');
    results.push({ length: bytes.length, sha256: crypto.createHash('sha256').update(bytes).digest('hex'), ...ends(bytes) });
  }
  return results;
}

/** The same, as whole strings: for the small exports the check compares directly. */
async function expectedTexts(driverFile, requests, posted) {
  const { OrdersTable } = require(driverFile);
  const table = new OrdersTable();
  const texts = [];
  for (const request of requests) texts.push(exportText(await ordersIn(table, posted, request), request.format));
  return texts;
}

module.exports = { expectedExports, expectedTexts, exportText, csvLine, ends, CSV_HEADER };
