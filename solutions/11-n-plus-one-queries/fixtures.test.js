'use strict';
// Lab 11's check against fixtures: other real fixes must pass (one query
// with a join, a batch written by hand, the reference's two queries inside a
// read-only transaction); "fixes" that keep one query per order, answer
// from a copy, drop part of the answer, or move the loop into the database
// must fail. Each is the shipped starter or the reference solution with a
// few lines changed (derivedApp: a change to their base that breaks a patch
// fails loudly). The lab's own suite is
// labs/11-n-plus-one-queries/check/verdicts.test.js.

const fs = require('node:fs');
const { findLab } = require('../../scripts/lib/labs');
const { materializeShipped } = require('../../scripts/lib/shipped');
const { describeFixtures, expectGates } = require('../../test/helpers/lab-verdicts');
const { derivedApp } = require('../../test/helpers/derived-app');

const lab = findLab('11');
const wrongResponses = (result) => result.responses.filter((r) => !r.pass).map((r) => `${r.name}: ${r.actual}`).join('\n');

const starter = () => {
  const shipped = materializeShipped(lab);
  if (shipped.error) throw new Error(shipped.error);
  return shipped.app;
};
// The derived apps live in .workbook/derived/: they find database.js by the path the solution uses.
const DATABASE = ["require('./database')", "require('../../labs/11-n-plus-one-queries/database')"];
const fromStarter = (name, patches) => derivedApp(`11-${name}`, starter(), [DATABASE, ...patches]);
const fromSolution = (name, patches) => derivedApp(`11-${name}`, lab.solutionApp, patches);

// The lines of the starter and the solution the fixtures change.
const LOOP_START = '  for (const order of orders) {\n    const { rows: items } = await pool.query(';
const LOOP_END = '    order.items = items;\n  }\n  return orders;';
const ANSWER = '  const orders = await recentOrders(Number(customerId));';
const BEFORE_APP = 'const app = express();';
const RECENT_ORDERS_START = "/** The customer's most recent orders, newest first, each with its items. */\nasync function recentOrders(customerId) {";

/** The solution with recentOrders() replaced by `replacement` (which must define it). */
function replacingRecentOrders(name, replacement) {
  const source = fs.readFileSync(lab.solutionApp, 'utf8');
  const start = source.indexOf(RECENT_ORDERS_START);
  const end = source.indexOf('\n}\n', start) + 3;
  if (start < 0 || end < 3) throw new Error(`fixture ${name}: recentOrders() is no longer in the solution`);
  return fromSolution(name, [[source.slice(start, end), replacement]]);
}

describe('lab 11 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      [
        'one query: the orders joined to their items, aggregated with json_agg',
        replacingRecentOrders(
          'json-agg',
          `async function recentOrders(customerId) {
  const { rows } = await pool.query(
    \`SELECT o.id, o.placed_at, o.status,
            coalesce(json_agg(json_build_object('sku', i.sku, 'name', i.name, 'quantity', i.quantity,
                                                'unit_price_cents', i.unit_price_cents) ORDER BY i.line)
                       FILTER (WHERE i.order_id IS NOT NULL), '[]') AS items
       FROM (SELECT * FROM orders WHERE customer_id = $1
              ORDER BY placed_at DESC, id DESC LIMIT $2) o
       LEFT JOIN order_items i ON i.order_id = o.id
      GROUP BY o.id, o.placed_at, o.status
      ORDER BY o.placed_at DESC, o.id DESC\`,
    [customerId, RECENT_ORDERS],
  );
  return rows;
}
`,
        ),
      ],
      [
        'one query: a plain join, one row per item, grouped into orders in JavaScript',
        replacingRecentOrders(
          'flat-join',
          `async function recentOrders(customerId) {
  const { rows } = await pool.query(
    \`SELECT o.id, o.placed_at, o.status, i.sku, i.name, i.quantity, i.unit_price_cents
       FROM (SELECT * FROM orders WHERE customer_id = $1
              ORDER BY placed_at DESC, id DESC LIMIT $2) o
       LEFT JOIN order_items i ON i.order_id = o.id
      ORDER BY o.placed_at DESC, o.id DESC, i.line\`,
    [customerId, RECENT_ORDERS],
  );
  const orders = [];
  for (const row of rows) {
    let order = orders.at(-1);
    if (!order || order.id !== row.id) orders.push((order = { id: row.id, placed_at: row.placed_at, status: row.status, items: [] }));
    if (row.sku !== null) order.items.push(row);
  }
  return orders;
}
`,
        ),
      ],
      [
        'a DataLoader-style batch written by hand: the items of every order asked for in the same tick, in one query',
        replacingRecentOrders(
          'batch-by-hand',
          `let waiting = null; // order id → the callers waiting for its items, until the batch is sent

/** An order's items; every call made in the same tick shares one query. */
function itemsOf(orderId) {
  return new Promise((resolve, reject) => {
    if (!waiting) {
      waiting = new Map();
      process.nextTick(sendBatch);
    }
    if (!waiting.has(orderId)) waiting.set(orderId, []);
    waiting.get(orderId).push({ resolve, reject });
  });
}

async function sendBatch() {
  const batch = waiting;
  waiting = null;
  try {
    const { rows } = await pool.query(
      \`SELECT order_id, sku, name, quantity, unit_price_cents
         FROM order_items WHERE order_id = ANY($1) ORDER BY order_id, line\`,
      [[...batch.keys()]],
    );
    const byOrder = new Map([...batch.keys()].map((id) => [id, []]));
    for (const row of rows) byOrder.get(row.order_id).push(row);
    for (const [id, callers] of batch) for (const caller of callers) caller.resolve(byOrder.get(id));
  } catch (err) {
    for (const callers of batch.values()) for (const caller of callers) caller.reject(err);
  }
}

async function recentOrders(customerId) {
  const { rows: orders } = await pool.query(
    \`SELECT id, placed_at, status FROM orders WHERE customer_id = $1
      ORDER BY placed_at DESC, id DESC LIMIT $2\`,
    [customerId, RECENT_ORDERS],
  );
  await Promise.all(orders.map(async (order) => (order.items = await itemsOf(order.id))));
  return orders;
}
`,
        ),
      ],
      [
        "the reference's two queries inside a read-only REPEATABLE READ transaction (one snapshot for both: four round trips)",
        replacingRecentOrders(
          'transaction',
          `async function recentOrders(customerId) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { rows: orders } = await client.query(
      \`SELECT id, placed_at, status FROM orders WHERE customer_id = $1
        ORDER BY placed_at DESC, id DESC LIMIT $2\`,
      [customerId, RECENT_ORDERS],
    );
    const { rows: items } = await client.query(
      \`SELECT order_id, sku, name, quantity, unit_price_cents
         FROM order_items WHERE order_id = ANY($1) ORDER BY order_id, line\`,
      [orders.map((order) => order.id)],
    );
    await client.query('COMMIT');
    const byOrder = new Map(orders.map((order) => [order.id, (order.items = [])]));
    for (const item of items) byOrder.get(item.order_id).push(item);
    return orders;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
`,
        ),
      ],
    ],
    cheats: [
      [
        "the starter's query per order, all at once with Promise.all on the pool (fast, but still one query per order)",
        fromStarter('promise-all', [
          [LOOP_START, '  await Promise.all(orders.map(async (order) => {\n    const { rows: items } = await pool.query('],
          [LOOP_END, '    order.items = items;\n  }));\n  return orders;'],
        ]),
        (result) => expectGates(result, { 'queries-per-request': false }),
      ],
      [
        "the starter's query per order, all at once on one pipelined client (pg's pipeline: true): about one round trip, still one query per order",
        fromStarter('pipelined', [
          [LOOP_START, '  await Promise.all(orders.map(async (order) => {\n    const { rows: items } = await pipelined.query('],
          [LOOP_END, '    order.items = items;\n  }));\n  return orders;'],
          ['  pool = new Pool({ connectionString: url });', "  pool = new Pool({ connectionString: url });\n  pipelined = new (require('pg').Client)({ connectionString: url, pipeline: true });\n  pipelined.connect();"],
          ['let pool; // connections to the database, made once it is up', 'let pool; // connections to the database, made once it is up\nlet pipelined; // one client that sends its queries without waiting for answers'],
        ]),
        (result) => expectGates(result, { 'queries-per-request': false }),
      ],
      [
        'answers kept in a Map: no queries for a customer asked for before',
        fromSolution('cache', [
          [ANSWER, '  const orders = kept.get(customerId) ?? (await recentOrders(Number(customerId)));\n  kept.set(customerId, orders);'],
          [BEFORE_APP, `const kept = new Map(); // customer id → orders\n${BEFORE_APP}`],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/served from a cache\?/),
      ],
      [
        'answers kept for a second (a "micro-cache")',
        fromSolution('micro-cache', [
          [
            ANSWER,
            `  const hit = kept.get(customerId);
  const orders = hit && Date.now() - hit.at < 1000 ? hit.orders : await recentOrders(Number(customerId));
  if (orders !== hit?.orders) kept.set(customerId, { orders, at: Date.now() });`,
          ],
          [BEFORE_APP, `const kept = new Map(); // customer id → { orders, at }\n${BEFORE_APP}`],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/served from a cache\?/),
      ],
      [
        'every answer read once when the app starts and served from memory',
        fromSolution('preloaded', [
          [
            ANSWER,
            `  const orders = preloaded.get(Number(customerId)) ?? [];`,
          ],
          [
            '  pool.on(\'error\', (err) => console.error(`database connection lost: ${err.message}`));',
            `  pool.on('error', (err) => console.error(\`database connection lost: \${err.message}\`));
  const { rows } = await pool.query(\`
    SELECT c.id, coalesce((
      SELECT json_agg(json_build_object('id', o.id, 'placed_at', o.placed_at, 'status', o.status, 'items',
               (SELECT coalesce(json_agg(json_build_object('sku', sku, 'name', name, 'quantity', quantity,
                                                           'unit_price_cents', unit_price_cents) ORDER BY line), '[]')
                  FROM order_items WHERE order_id = o.id)) ORDER BY o.placed_at DESC, o.id DESC)
        FROM (SELECT * FROM orders WHERE customer_id = c.id ORDER BY placed_at DESC, id DESC LIMIT 20) o), '[]') AS orders
      FROM customers c\`);
  for (const row of rows) preloaded.set(row.id, row.orders);`,
          ],
          ['startDatabase().then((url) => {', 'startDatabase().then(async (url) => {'],
          [BEFORE_APP, `const preloaded = new Map(); // customer id → orders, read at start\n${BEFORE_APP}`],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/not read from the database/),
      ],
      [
        'only the 10 most recent orders (half the work)',
        fromSolution('ten-orders', [['    [customerId, RECENT_ORDERS],', '    [customerId, 10],']]),
        (result) => expect(wrongResponses(result)).toMatch(/10 orders, not 20/),
      ],
      [
        'only the first item of each order',
        fromSolution('first-items', [
          ['  for (const item of items) byOrder.get(item.order_id).push(item);', '  for (const item of items) if (byOrder.get(item.order_id).length === 0) byOrder.get(item.order_id).push(item);'],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/items, not/),
      ],
      [
        'a PL/pgSQL function, made by the app at start, that loops over the orders inside the database (one round trip, still a query per order)',
        replacingRecentOrders(
          'function-in-database',
          `let functionMade = null;

async function recentOrders(customerId) {
  functionMade ??= pool.query(\`
    CREATE OR REPLACE FUNCTION recent_orders(customer integer, n integer) RETURNS SETOF json
    LANGUAGE plpgsql AS $fn$
    DECLARE o record;
    BEGIN
      FOR o IN SELECT id, placed_at, status FROM orders WHERE customer_id = customer
                ORDER BY placed_at DESC, id DESC LIMIT n LOOP
        RETURN NEXT json_build_object('id', o.id, 'placed_at', o.placed_at, 'status', o.status, 'items',
          (SELECT coalesce(json_agg(json_build_object('sku', sku, 'name', name, 'quantity', quantity,
                                                      'unit_price_cents', unit_price_cents) ORDER BY line), '[]')
             FROM order_items WHERE order_id = o.id));
      END LOOP;
    END $fn$\`);
  await functionMade;
  const { rows } = await pool.query('SELECT recent_orders($1, $2) AS "order"', [customerId, RECENT_ORDERS]);
  return rows.map((row) => row.order);
}
`,
        ),
        (result) => expect(wrongResponses(result)).toMatch(/only reads the database: .*CREATE OR REPLACE FUNCTION/),
      ],
    ],
  });
});
