'use strict';
// What the app must answer, asked of the database itself, and how the check
// changes the data between its phases.

const { isDeepStrictEqual } = require('node:util');
const { counted } = require('../../../scripts/checks/gates');

const RECENT_ORDERS = 20;

// The check's own query, on its own connection: each customer's 20 most
// recent orders, newest first, with their items in line order, as the API
// sends them.
const EXPECTED = `
SELECT c.id AS customer,
       coalesce((
         SELECT json_agg(json_build_object(
                  'id', o.id, 'placedAt', o.placed_at, 'status', o.status,
                  'items', (SELECT coalesce(json_agg(json_build_object(
                                     'sku', i.sku, 'name', i.name, 'quantity', i.quantity,
                                     'unitPriceCents', i.unit_price_cents) ORDER BY i.line), '[]')
                              FROM order_items i WHERE i.order_id = o.id))
                ORDER BY o.placed_at DESC, o.id DESC)
           FROM (SELECT * FROM orders WHERE customer_id = c.id
                  ORDER BY placed_at DESC, id DESC LIMIT ${RECENT_ORDERS}) o), '[]') AS orders
  FROM unnest($1::int[]) AS c(id)`;

/**
 * The answers the API must give now, by customer id.
 * @param {(text:string, values?:any[]) => Promise<{rows:object[]}>} query the check's own
 * @param {number[]} ids
 * @returns {Promise<Map<number, object>>}
 */
async function expectedAnswers(query, ids) {
  const { rows } = await query(EXPECTED, [ids]);
  return new Map(rows.map((r) => [r.customer, { customerId: r.customer, orders: r.orders }]));
}

/**
 * Changes the data of these customers, as another program would: a new
 * order for each (the newest, so the oldest of their 20 drops out of the
 * answer) and one more of every item they ever ordered. Anything the app
 * kept from before is now wrong. (The check runs it as one transaction of
 * its own: owned-database.js's changeAsCheck.)
 */
async function changeData(query, ids, revision) {
  await query(
    `INSERT INTO orders
       SELECT id * 100 + 50 + $2, id, timestamptz '2026-12-01 12:00:00+00' + $2 * interval '1 day', 'placed'
         FROM unnest($1::int[]) id`,
    [ids, revision],
  );
  await query(
    `INSERT INTO order_items
       SELECT id * 100 + 50 + $2, line, 'SKU-9' || lpad(($2 * 10 + line)::text, 3, '0'), 'gift card', 1, 1000 * $2
         FROM unnest($1::int[]) id, generate_series(1, 2) line`,
    [ids, revision],
  );
  await query(`UPDATE order_items SET quantity = quantity + 1 WHERE order_id IN (SELECT id FROM orders WHERE customer_id = ANY($1))`, [ids]);
}

/** Customers with these numbers of orders (the first of each), by asking the database. */
async function customersWith(query, counts) {
  const { rows } = await query(
    `SELECT n, (SELECT min(id) FROM customers c WHERE (SELECT count(*) FROM orders WHERE customer_id = c.id) = n) AS id
       FROM unnest($1::int[]) n`,
    [counts],
  );
  return rows.map((r) => ({ orders: r.n, id: r.id }));
}

/** Customers with more orders than one answer holds: every answer is a full page. */
async function busyCustomers(query, count) {
  const { rows } = await query(
    `SELECT customer_id AS id FROM orders GROUP BY customer_id HAVING count(*) > ${RECENT_ORDERS} ORDER BY customer_id LIMIT $1`,
    [count],
  );
  return rows.map((r) => r.id);
}

const FIELDS = {
  order: ['id', 'placedAt', 'status', 'items'],
  item: ['sku', 'name', 'quantity', 'unitPriceCents'],
};

/** An order as the check compares it: the time as an instant, however it is written. */
function normalOrder(order) {
  if (!order || typeof order !== 'object') return order;
  const placed = typeof order.placedAt === 'string' ? Date.parse(order.placedAt) : NaN;
  return { ...order, placedAt: Number.isNaN(placed) ? order.placedAt : placed };
}

/**
 * What is wrong with an answer, or null. The contract (the walkthrough's
 * "The API"): `customerId`, and `orders`, the customer's 20 most recent
 * orders, newest first, each `{id, placedAt, status, items}` with its items
 * `{sku, name, quantity, unitPriceCents}` in line order; `placedAt` any
 * ISO 8601 form of the same instant. Nothing else.
 * @param {string} body
 * @param {object} expected the answer now
 * @param {Array<{revision:number, answer:object}>} [earlier] the same customer's answers before the data changed
 */
function answerProblem(body, expected, earlier = []) {
  let got;
  try {
    got = JSON.parse(body);
  } catch {
    return `not JSON: ${body.slice(0, 80)}`;
  }
  if (!got || typeof got !== 'object' || !Array.isArray(got.orders)) return `no list of orders: ${body.slice(0, 80)}`;
  const extra = Object.keys(got).filter((k) => k !== 'customerId' && k !== 'orders');
  if (extra.length) return `fields besides customerId and orders: ${extra.join(', ')}`;
  if (got.customerId !== expected.customerId) return `customerId is ${JSON.stringify(got.customerId)}, not ${expected.customerId}`;
  const same = (a, b) => isDeepStrictEqual(a.orders.map(normalOrder), b.orders.map(normalOrder));
  if (same(got, expected)) return null;
  for (const { revision, answer } of [...earlier].reverse()) {
    if (same(got, answer)) return `the orders as they were before the data changed (revision ${revision}): served from a cache?`;
  }
  return difference(got.orders, expected.orders);
}

/** The first difference between the orders sent and the orders expected, in words. */
function difference(got, expected) {
  if (got.length !== expected.length) {
    return `${counted(got.length, 'order')}, not ${expected.length}${expected.length === RECENT_ORDERS && got.length < expected.length ? ` (the ${RECENT_ORDERS} most recent)` : ''}`;
  }
  for (let i = 0; i < expected.length; i++) {
    const g = normalOrder(got[i]);
    const e = normalOrder(expected[i]);
    if (!g || typeof g !== 'object') return `order ${i + 1} is ${JSON.stringify(got[i])}`;
    const extra = Object.keys(g).filter((k) => !FIELDS.order.includes(k));
    if (extra.length) return `order ${e.id} has fields besides ${FIELDS.order.join(', ')}: ${extra.join(', ')}`;
    if (g.id !== e.id) return `order ${i + 1} is ${JSON.stringify(g.id)}, not ${e.id} (newest first: placed_at, then id, descending)`;
    if (g.placedAt !== e.placedAt) return `order ${e.id} placedAt ${JSON.stringify(got[i].placedAt)}, not ${expected[i].placedAt}`;
    if (g.status !== e.status) return `order ${e.id} status ${JSON.stringify(g.status)}, not ${JSON.stringify(e.status)}`;
    if (!Array.isArray(g.items)) return `order ${e.id} has no list of items`;
    if (g.items.length !== e.items.length) return `order ${e.id} has ${g.items.length} items, not ${e.items.length}`;
    for (let j = 0; j < e.items.length; j++) {
      const gi = g.items[j];
      const ei = e.items[j];
      const extraItem = gi && typeof gi === 'object' ? Object.keys(gi).filter((k) => !FIELDS.item.includes(k)) : [];
      if (extraItem.length) return `an item of order ${e.id} has fields besides ${FIELDS.item.join(', ')}: ${extraItem.join(', ')}`;
      if (!isDeepStrictEqual(gi, ei)) return `item ${j + 1} of order ${e.id} is ${JSON.stringify(gi)}, not ${JSON.stringify(ei)}${gi && gi.sku !== ei.sku ? ' (in line order)' : ''}`;
    }
  }
  return 'differs from the database';
}

module.exports = { expectedAnswers, changeData, customersWith, busyCustomers, answerProblem, RECENT_ORDERS };
