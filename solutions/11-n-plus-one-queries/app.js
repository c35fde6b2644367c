'use strict';
// An order-history API: GET /customers/:customerId/orders answers with a
// customer's 20 most recent orders, newest first, each with its items. The
// data is in PostgreSQL: database.js starts one for you, and makes every
// round trip to it take DATABASE_DELAY_MS longer (2 unless set), as a
// database on another machine would.
//
// The fix: two queries per request, however many orders. The first finds
// the orders, as before; the second fetches the items of all of them at
// once (`order_id = ANY($1)`, with the orders' ids as one array parameter),
// and the items are handed to their orders in JavaScript. A request now
// waits for two round trips to the database instead of one per order.
const express = require('express');
const { Pool } = require('pg');
const { startDatabase } = require('../../labs/11-n-plus-one-queries/database');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);
const RECENT_ORDERS = 20;

let pool; // connections to the database, made once it is up

/** The customer's most recent orders, newest first, each with its items. */
async function recentOrders(customerId) {
  const { rows: orders } = await pool.query(
    `SELECT id, placed_at, status
       FROM orders
      WHERE customer_id = $1
      ORDER BY placed_at DESC, id DESC
      LIMIT $2`,
    [customerId, RECENT_ORDERS],
  );
  if (orders.length === 0) return orders;
  const { rows: items } = await pool.query(
    `SELECT order_id, sku, name, quantity, unit_price_cents
       FROM order_items
      WHERE order_id = ANY($1)
      ORDER BY order_id, line`,
    [orders.map((order) => order.id)],
  );
  const byOrder = new Map(orders.map((order) => [order.id, (order.items = [])]));
  for (const item of items) byOrder.get(item.order_id).push(item);
  return orders;
}

const app = express();

app.get('/customers/:customerId/orders', async (req, res) => {
  const { customerId } = req.params;
  if (!/^\d{1,9}$/.test(customerId)) {
    res.status(400).json({ error: 'customerId must be a number' });
    return;
  }
  const orders = await recentOrders(Number(customerId));
  res.json({
    customerId: Number(customerId),
    orders: orders.map((order) => ({
      id: order.id,
      placedAt: order.placed_at,
      status: order.status,
      items: order.items.map((item) => ({
        sku: item.sku,
        name: item.name,
        quantity: item.quantity,
        unitPriceCents: item.unit_price_cents,
      })),
    })),
  });
});

startDatabase().then((url) => {
  pool = new Pool({ connectionString: url });
  // An idle connection that breaks (the database restarted) is replaced on
  // the next query; without a listener, its error would end the app.
  pool.on('error', (err) => console.error(`database connection lost: ${err.message}`));
  const server = app.listen(PORT, HOST, (err) => {
    if (err) throw err; // e.g. EADDRINUSE: another app is on this port
    console.log(`Listening on http://${HOST}:${server.address().port}`);
  });
});
