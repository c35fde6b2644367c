'use strict';
// Lab 13's standard load (`workbook load 13`, the profilers, the captures):
// a shop's ordinary week, then the import that stops the starter.
//
// setup() imports the week of 2 to 8 March 2026: STANDARD.orders orders
// from the checkout, with the short runs of equal times real data has.
// autocannon then reads one day of it (GET /orders for 3 March) from
// `connections` connections. In the background, `stuckAfterSeconds` s
// in, the marketplace connector imports a batch of `batchSize` orders
// stamped with one instant (noon on 5 March, as its nightly batch stamps
// them) and accounting exports that day. The same orders every time (a
// fixed seed), so running it twice against the same app imports nothing
// new the second time (ids already stored are skipped) and gets stuck the
// same way.

const { request } = require('../../../scripts/harness/http-client');
const { generator, ordinaryInstants, iso, DAY_MS } = require('./orders');

const WEEK_FROM = Date.UTC(2026, 2, 2);
const READ_DAY = Date.UTC(2026, 2, 3);
const BATCH_DAY = Date.UTC(2026, 2, 5);
const BATCH_AT = BATCH_DAY + 12 * 3_600_000;
const CUSTOMERS = Array.from({ length: 60 }, (_, i) => `cus_${String(i + 1).padStart(4, '0')}`);

/** The week's orders and the marketplace's batch, the same on every run. */
function standardOrders({ orders, batchSize }) {
  const rand = generator(2026_03_02);
  const week = ordinaryInstants(rand, orders, WEEK_FROM, WEEK_FROM + 7 * DAY_MS).map((placedAt, i) => ({
    id: `web_${String(i + 1).padStart(6, '0')}`,
    customer: rand.pick(CUSTOMERS),
    placedAt: iso(placedAt),
    total: rand.int(500, 20_000) / 100,
  }));
  const batch = Array.from({ length: batchSize }, (_, i) => ({
    id: `mkt_${String(i + 1).padStart(6, '0')}`,
    customer: rand.pick(CUSTOMERS),
    placedAt: iso(BATCH_AT),
    total: rand.int(500, 20_000) / 100,
  }));
  return { week, batch };
}

const post = (url, orders) => request(`${url}/orders`, { method: 'POST', body: JSON.stringify({ orders }), timeoutMs: 60_000 });

const standardLoad = {
  async setup(url) {
    const { week, batch } = standardOrders(standardLoad);
    for (let i = 0; i < week.length; i += 1000) await post(url, week.slice(i, i + 1000));
    // In the background: the batch, then the export of its day. Neither
    // keeps a command alive (the commands exit when their load ends), and
    // against the starter the export never comes back.
    const timer = setTimeout(() => {
      post(url, batch)
        .then(() => request(`${url}/orders?from=${iso(BATCH_DAY)}&to=${iso(BATCH_DAY + DAY_MS)}`, { timeoutMs: 600_000 }))
        .catch(() => {});
    }, standardLoad.stuckAfterSeconds * 1000);
    timer.unref();
  },
  path: `/orders?from=${iso(READ_DAY)}&to=${iso(READ_DAY + DAY_MS)}`,
  connections: 2,
  duration: 10,
  orders: 2000,
  batchSize: 1200,
  stuckAfterSeconds: 3,
  describe: 'GET /orders for one day of an ordinary week of 2000 orders, from 2 connections; 3 s in, the marketplace imports a batch of 1200 orders stamped with one instant and accounting exports that day',
  examples: ['/health', `/orders?from=${iso(READ_DAY)}&to=${iso(READ_DAY + DAY_MS)}`, `/customers/${CUSTOMERS[0]}/orders`],
};

module.exports = { standardLoad, standardOrders, BATCH_AT, BATCH_DAY, READ_DAY };
