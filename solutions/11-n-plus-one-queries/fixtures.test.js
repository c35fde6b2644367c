'use strict';
// Lab 11's check against fixtures: other real fixes must pass (one query
// with a join, one with a correlated subquery, a batch written by hand, the
// reference's two queries inside a read-only transaction, a client that
// reads the database's types when it connects); "fixes" that keep one query
// per order (however they send it), answer from a copy, drop part of the
// answer, write to the database (however the statement looks), or reach the
// database around the network that counts must fail. Each is the shipped
// starter or the reference solution with a few lines changed (derivedApp: a
// change to their base that breaks a patch fails loudly). The lab's own
// suite is labs/11-n-plus-one-queries/check/verdicts.test.js.

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
const POOL_MADE = '  pool = new Pool({ connectionString: url });';
const ORDERS_READ = '  const { rows: orders } = await pool.query(';
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
      [
        "one query: each order's items in a correlated subquery (json_agg), the walkthrough's own program's query",
        replacingRecentOrders(
          'correlated-subquery',
          `async function recentOrders(customerId) {
  const { rows } = await pool.query(
    \`SELECT o.id, o.placed_at, o.status,
            (SELECT coalesce(json_agg(json_build_object('sku', i.sku, 'name', i.name, 'quantity', i.quantity,
                                                       'unit_price_cents', i.unit_price_cents) ORDER BY i.line), '[]')
               FROM order_items i WHERE i.order_id = o.id) AS items
       FROM (SELECT * FROM orders WHERE customer_id = $1
              ORDER BY placed_at DESC, id DESC LIMIT $2) o
      ORDER BY o.placed_at DESC, o.id DESC\`,
    [customerId, RECENT_ORDERS],
  );
  return rows;
}
`,
        ),
      ],
      [
        "the reference with a pool whose every new connection first reads the database's types (as some clients do at connect): not charged to a request",
        fromSolution('types-at-connect', [
          [
            POOL_MADE,
            `${POOL_MADE}
  pool.on('connect', (client) => {
    client.query("SELECT oid, typname FROM pg_type WHERE typname = ANY('{int4,text,timestamptz,json}')").catch(() => {});
  });`,
          ],
        ]),
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
        'a PL/pgSQL function, made by the app on its first request, that loops over the orders inside the database: it fails because the app wrote (CREATE FUNCTION), not because of the loop (a correlated subquery loops too, and passes)',
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
      [
        "the starter's item queries sent as one string of statements, each ending in a comment closed by a carriage return (`--\\r;`): 21 statements in two round trips",
        fromStarter('comment-cr', [
          [
            LOOP_START,
            `  if (orders.length) {
    const text = orders.map((order) => \`SELECT sku, name, quantity, unit_price_cents FROM order_items WHERE order_id = \${Number(order.id)} ORDER BY line --\\r;\`).join(' ');
    const results = [].concat(await pool.query(text));
    orders.forEach((order, i) => (order.items = results[i].rows));
  }
  for (const order of []) {
    const { rows: items } = await pool.query(`,
          ],
        ]),
        (result) => expectGates(result, { 'queries-per-request': false }),
      ],
      [
        "a visit written on every request inside the orders' query: a prepared statement (PREPARE, then EXECUTE) whose data-modifying WITH updates the customer (the tag says SELECT 20)",
        fromSolution('prepare-execute', [
          [
            `${ORDERS_READ}
    \`SELECT id, placed_at, status
       FROM orders
      WHERE customer_id = $1
      ORDER BY placed_at DESC, id DESC
      LIMIT $2\`,
    [customerId, RECENT_ORDERS],
  );`,
            `  prepared ??= pool.query(\`PREPARE recent(int, int) AS
      WITH visit AS (UPDATE customers SET name = name WHERE id = $1)
      SELECT id, placed_at, status FROM orders WHERE customer_id = $1
       ORDER BY placed_at DESC, id DESC LIMIT $2\`);
  await prepared;
  const { rows: orders } = await pool.query(\`EXECUTE recent(\${Number(customerId)}, \${RECENT_ORDERS})\`);`,
          ],
          [BEFORE_APP, `let prepared = null; // the PREPARE, once (PGlite's one session: every connection sees it)\n${BEFORE_APP}`],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/only reads the database: .*transaction id.*EXECUTE recent/),
      ],
      [
        'a table made by the app at start with SELECT … INTO (the tag says SELECT 1)',
        fromSolution('select-into', [
          [
            "  pool.on('error', (err) => console.error(`database connection lost: ${err.message}`));",
            `  pool.on('error', (err) => console.error(\`database connection lost: \${err.message}\`));
  await pool.query(\`SELECT now() AS started INTO TEMP TABLE app_started_\${process.pid}\`);`,
          ],
          ['startDatabase().then((url) => {', 'startDatabase().then(async (url) => {'],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/only reads the database: .*transaction id.*the app's start.*INTO TEMP TABLE/),
      ],
      [
        'a table made by the app at start with EXPLAIN ANALYZE CREATE TABLE … AS (the tag says EXPLAIN)',
        fromSolution('explain-analyze-create', [
          [
            "  pool.on('error', (err) => console.error(`database connection lost: ${err.message}`));",
            `  pool.on('error', (err) => console.error(\`database connection lost: \${err.message}\`));
  await pool.query(\`EXPLAIN ANALYZE CREATE TEMP TABLE app_seen_\${process.pid} AS SELECT 1 AS x\`);`,
          ],
          ['startDatabase().then((url) => {', 'startDatabase().then(async (url) => {'],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/only reads the database: .*transaction id.*EXPLAIN ANALYZE/),
      ],
      [
        "a counter kept with setval() inside the orders' query on every request, its sequence made in a DO block at start (the tags say SELECT and DO)",
        fromSolution('setval', [
          ['      WHERE customer_id = $1\n', "      WHERE customer_id = $1 AND setval('visits', $1) > 0\n"],
          [
            "  pool.on('error', (err) => console.error(`database connection lost: ${err.message}`));",
            `  pool.on('error', (err) => console.error(\`database connection lost: \${err.message}\`));
  await pool.query('DO $$ BEGIN CREATE SEQUENCE IF NOT EXISTS visits; END $$');`,
          ],
          ['startDatabase().then((url) => {', 'startDatabase().then(async (url) => {'],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/only reads the database: .*transaction id.*(DO|setval)/),
      ],
      [
        "the starter's query per order sent on a connection of its own straight to the database (found by its listening port), around the network that counts: one query per request seen",
        fromStarter('around-the-wire', [
          [
            LOOP_START,
            `  const direct = await (around ??= databaseAround());
  for (const order of orders) {
    const { rows: items } = await direct.query(`,
          ],
          [
            BEFORE_APP,
            `let around = null; // a connection to the database that does not go through DATABASE_URL

/**
 * The check's database, reached directly: the listening port of a sibling
 * process (the app's parent started both), found in /proc (Linux).
 */
async function databaseAround() {
  const fs = require('node:fs');
  const { Client } = require('pg');
  const siblings = fs.readdirSync(\`/proc/\${process.ppid}/task\`).flatMap((tid) => fs.readFileSync(\`/proc/\${process.ppid}/task/\${tid}/children\`, 'utf8').split(' ').filter(Boolean).map(Number));
  const inodes = new Set();
  for (const pid of siblings.filter((pid) => pid !== process.pid)) {
    for (const fd of fs.readdirSync(\`/proc/\${pid}/fd\`)) {
      try {
        const m = /^socket:\\[(\\d+)\\]$/.exec(fs.readlinkSync(\`/proc/\${pid}/fd/\${fd}\`));
        if (m) inodes.add(m[1]);
      } catch {}
    }
  }
  const ports = fs.readFileSync('/proc/net/tcp', 'utf8').split('\\n').slice(1).map((l) => l.trim().split(/\\s+/))
    .filter((f) => f[3] === '0A' && inodes.has(f[9])).map((f) => parseInt(f[1].split(':')[1], 16));
  for (const port of ports) {
    const client = new Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 500 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1 FROM order_items LIMIT 1');
      return client;
    } catch {
      client.end().catch(() => {});
    }
  }
  throw new Error('no database around the network');
}

${BEFORE_APP}`,
          ],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/went through the network in front of it: .*around it/),
      ],
    ],
  });
});
