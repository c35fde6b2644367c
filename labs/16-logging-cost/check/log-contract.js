'use strict';
// The log contract (the walkthrough's "The log contract"), as the check
// verifies it: for every request the check sends, with its own
// `x-request-id`, exactly one line on stdout that is a whole JSON object
// with
//   reqId         the request's x-request-id
//   method, url   as sent ("GET", "/orders/ord_00042")
//   statusCode    the status the check received
//   responseTime  a number of ms, 0 or more
//   level         info: "info" or pino's 30
//   orderId       the order asked for
// and, for an order found, `lines` and `totalCents` as in the answer.
// Other fields are free (time, msg, pid, hostname…). A line that is cut,
// merged with another or not JSON is not a line of the contract; a
// request with no line, or with two, breaks it.

const { find } = require('../orders-db');

const INFO = new Set(['info', 30]);

/** What the order service must answer for `id`: its summary, or null (a 404). */
function expectedSummary(id) {
  const order = find(id);
  if (!order) return null;
  const totalCents = order.lines.reduce((sum, line) => sum + line.quantity * line.unitPriceCents, 0);
  return { id: order.id, customer: order.customer, placedAt: order.placedAt, shipping: order.shipping, lines: order.lines.length, totalCents };
}

/** What is wrong with an answer to GET /orders/:id, or null. */
function answerProblem(res, id) {
  if (res instanceof Error) return res.message;
  const expected = expectedSummary(id);
  if (!expected) return res.status === 404 ? null : `status ${res.status} for an order that does not exist (expected 404)`;
  if (res.status !== 200) return `status ${res.status}`;
  let body;
  try {
    body = JSON.parse(res.body);
  } catch {
    return 'the body is not JSON';
  }
  for (const key of ['id', 'placedAt', 'lines', 'totalCents']) {
    if (body[key] !== expected[key]) return `${key} is ${JSON.stringify(body[key])}, expected ${JSON.stringify(expected[key])}`;
  }
  if (JSON.stringify(body.customer) !== JSON.stringify(expected.customer)) return 'the customer is not the order\'s';
  if (JSON.stringify(body.shipping) !== JSON.stringify(expected.shipping)) return 'the shipping is not the order\'s';
  return null;
}

/**
 * Collects an app's stdout lines by request id. Lines that are not JSON
 * objects, or carry no reqId the check sent, are counted, not kept: the
 * check keeps a few bytes per request, whatever the app writes.
 */
function lineBook() {
  const byId = new Map(); // reqId → [{ entry } | { problem }]
  let lines = 0;
  let bytes = 0;
  let unparsed = 0;
  const expected = new Set();
  return {
    expect(reqId) {
      expected.add(reqId);
    },
    onLine(line) {
      lines++;
      bytes += Buffer.byteLength(line) + 1;
      let entry;
      try {
        entry = JSON.parse(line);
      } catch {
        unparsed++;
        return;
      }
      if (!entry || typeof entry !== 'object' || typeof entry.reqId !== 'string' || !expected.has(entry.reqId)) return;
      const kept = { reqId: entry.reqId, method: entry.method, url: entry.url, statusCode: entry.statusCode, responseTime: entry.responseTime, level: entry.level, orderId: entry.orderId, lines: entry.lines, totalCents: entry.totalCents, bytes: Buffer.byteLength(line) };
      if (!byId.has(entry.reqId)) byId.set(entry.reqId, []);
      byId.get(entry.reqId).push(kept);
    },
    has: (reqId) => byId.has(reqId),
    arrived: () => [...expected].filter((id) => byId.has(id)).length,
    entries: (reqId) => byId.get(reqId) || [],
    stats: () => ({ lines, bytes, unparsed }),
  };
}

/** What is wrong with the lines for one request the check sent, or null. */
function lineProblem(entries, { reqId, id, status }) {
  if (entries.length === 0) return 'no line';
  if (entries.length > 1) return `${entries.length} lines`;
  const [e] = entries;
  const url = `/orders/${id}`;
  if (e.method !== 'GET') return `method ${JSON.stringify(e.method)}, expected "GET"`;
  if (e.url !== url) return `url ${JSON.stringify(e.url)}, expected ${JSON.stringify(url)}`;
  if (e.statusCode !== status) return `statusCode ${JSON.stringify(e.statusCode)}, expected ${status}`;
  if (!(typeof e.responseTime === 'number' && e.responseTime >= 0)) return `responseTime ${JSON.stringify(e.responseTime)}, expected a number of ms`;
  if (!INFO.has(e.level)) return `level ${JSON.stringify(e.level)}, expected info`;
  if (e.orderId !== id) return `orderId ${JSON.stringify(e.orderId)}, expected ${JSON.stringify(id)}`;
  const summary = expectedSummary(id);
  if (summary && (e.lines !== summary.lines || e.totalCents !== summary.totalCents)) {
    return `lines ${JSON.stringify(e.lines)} and totalCents ${JSON.stringify(e.totalCents)}, expected ${summary.lines} and ${summary.totalCents}`;
  }
  void reqId;
  return null;
}

module.exports = { expectedSummary, answerProblem, lineBook, lineProblem };
