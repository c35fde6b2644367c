'use strict';
// The orders lab 13's check imports, and the answers the walkthrough's
// contract says the app must give for them: every order of a period (or of
// a customer), each once, in (placedAt, id) order.
//
// Each case comes in two versions of the same size on the same route:
// ORDINARY, orders spread over the period with the short runs of equal
// times real data has (two to six orders in the same millisecond), and
// LOOPING, the same number of orders of which a run of more than 1000 (more
// than the store's largest page) share one instant, as a marketplace's
// batch import stamps them. A read that restarts every page at the last
// page's instant never gets past such a run; a read that starts every page
// after the last page's instant skips the rest of it. The families put the
// run where a loop meets it differently: in the middle of a period, at its
// very first millisecond, as its last orders, twice in a row, as the whole
// period, and in one customer's history among other customers' orders of
// the same instant. Everything is drawn afresh on every run (ids, times,
// sizes, customers), from a seeded generator so that a run can be replayed.

const { seededRandom } = require('../../../scripts/harness/seeded-random');

const DAY_MS = 86_400_000;
// The store's largest page (orders-store.js): a run longer than that fills
// a page whatever page size an app asks for.
const STORE_MAX_LIMIT = 1000;

/** The check's random source, seeded, so a failing run can be replayed from its seed. */
function generator(seed) {
  const rand = seededRandom(seed);
  const chars = (n) => Array.from({ length: n }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[rand.int(0, 35)]).join('');
  return { ...rand, chars };
}

/** Unique order ids and customer names for one run (random, so id order is not time order). */
function namer(rand) {
  const used = new Set();
  const fresh = (prefix) => {
    let name;
    do name = `${prefix}_${rand.chars(10)}`;
    while (used.has(name));
    used.add(name);
    return name;
  };
  return { orderId: () => fresh('ord'), customer: () => fresh('cus') };
}

/**
 * `n` instants in [from, to), with the short runs of equal times real data
 * has: about half the orders share their millisecond with one to five others.
 */
function ordinaryInstants(rand, n, from, to) {
  const out = [];
  while (out.length < n) {
    const at = from + rand.int(0, to - from - 1);
    const copies = rand.next() < 0.5 ? 1 : rand.int(2, 6);
    for (let c = 0; c < copies && out.length < n; c++) out.push(at);
  }
  return out;
}

/** Orders at these instants, each with a fresh id, a customer from `customers` and a total. */
function ordersAt(rand, names, instants, customers) {
  return instants.map((placedAt) => ({
    id: names.orderId(),
    customer: typeof customers === 'string' ? customers : rand.pick(customers),
    placedAt,
    total: rand.int(100, 50_000) / 100,
  }));
}

/** A whole second inside [from, to), at least `margin` ms from both ends. */
function instantInside(rand, from, to, margin = 1000) {
  const lo = Math.ceil((from + margin) / 1000);
  const hi = Math.floor((to - margin) / 1000) - 1;
  return rand.int(lo, hi) * 1000;
}

const run = (rand) => rand.int(STORE_MAX_LIMIT + 1, STORE_MAX_LIMIT + 400);

/**
 * The families of looping input. `orders(rand, names, period)` returns the
 * period's orders with the run(s) placed as the family says; the ordinary
 * twin has as many orders, spread out.
 */
const PERIOD_FAMILIES = [
  {
    id: 'batch-mid-period',
    describe: 'an export whose period holds a batch of orders stamped with one instant, among ordinary orders',
    instants: (rand, { from, to }) => {
      const size = run(rand);
      const at = instantInside(rand, from, to);
      return [...ordinaryInstants(rand, rand.int(100, 400), from, to), ...Array(size).fill(at)];
    },
  },
  {
    id: 'batch-opens-period',
    describe: 'an export whose first orders are such a batch, stamped with the period\'s first millisecond',
    instants: (rand, { from, to }) => [...Array(run(rand)).fill(from), ...ordinaryInstants(rand, rand.int(100, 400), from + 1, to)],
  },
  {
    id: 'batch-ends-period',
    describe: 'an export whose last orders are such a batch, stamped with the period\'s last millisecond',
    instants: (rand, { from, to }) => [...ordinaryInstants(rand, rand.int(100, 400), from, to - 1), ...Array(run(rand)).fill(to - 1)],
  },
  {
    id: 'two-batches',
    describe: 'an export with two such batches at two instants a second apart',
    instants: (rand, { from, to }) => {
      const at = instantInside(rand, from, to, 5000);
      return [...ordinaryInstants(rand, rand.int(50, 200), from, to), ...Array(run(rand)).fill(at), ...Array(run(rand)).fill(at + 1000)];
    },
  },
  {
    id: 'one-instant-period',
    describe: 'an export whose every order is stamped with the same instant',
    instants: (rand, { from, to }) => Array(run(rand) + rand.int(0, 300)).fill(instantInside(rand, from, to)),
  },
];

const CUSTOMER_FAMILIES = [
  {
    id: 'customer-bulk-order',
    describe: 'a customer\'s history with a bulk order, one order per line, all stamped with one instant that other customers\' orders share',
    runs: 1,
  },
  {
    id: 'customer-two-bulk-orders',
    describe: 'a customer\'s history with two such bulk orders, a day apart',
    runs: 2,
  },
];

const FAMILIES = [...PERIOD_FAMILIES.map((f) => ({ ...f, route: 'period' })), ...CUSTOMER_FAMILIES.map((f) => ({ ...f, route: 'customer' }))];

const iso = (ms) => new Date(ms).toISOString();

/**
 * One case: a family's looping version and its ordinary twin, with the
 * orders to import for both (shuffled, with orders just outside each
 * period, and other customers' orders) and the answers each must get.
 * `day` is a day number no other case of the run uses.
 * @returns {{family:object, orders:object[], looping:Query, ordinary:Query}}
 *   Query: { path, expected: {kind, key, orders} }
 */
function makeCase(rand, names, family, day) {
  const orders = [];
  const periodOf = (d) => {
    const dayStart = Date.UTC(2031, 0, 1) + d * DAY_MS;
    // A period of a few hours, starting at a random minute, given with its milliseconds.
    const from = dayStart + rand.int(0, 8 * 60) * 60_000 + rand.int(0, 999);
    return { from, to: from + rand.int(2, 8) * 3_600_000 };
  };
  const pool = Array.from({ length: 40 }, () => names.customer());

  if (family.route === 'period') {
    const make = (d, instants) => {
      const period = periodOf(d);
      const inside = ordersAt(rand, names, instants(period), pool);
      // Just outside: at from - 1 ms, at to (exclusive), and later the same day.
      const outside = ordersAt(rand, names, [period.from - 1, period.to, period.to, period.to + rand.int(1, 3_600_000)], pool);
      orders.push(...inside, ...outside);
      return { path: `/orders?from=${iso(period.from)}&to=${iso(period.to)}`, expected: { kind: 'period', from: period.from, to: period.to, orders: sortOrders(inside) } };
    };
    const looping = make(day, (period) => family.instants(rand, period));
    const size = looping.expected.orders.length;
    const ordinary = make(day + 1, (period) => ordinaryInstants(rand, size, period.from, period.to));
    return { family, orders: shuffle(rand, orders), looping, ordinary };
  }

  // A customer: ordinary orders over a few weeks, and the bulk orders at
  // instants other customers' orders share.
  const make = (d, bulk) => {
    const customer = names.customer();
    const weeks = { from: Date.UTC(2031, 0, 1) + d * DAY_MS, to: Date.UTC(2031, 0, 1) + (d + 21) * DAY_MS };
    const theirs = [];
    for (let r = 0; r < bulk.runs; r++) {
      const at = instantInside(rand, weeks.from + r * DAY_MS, weeks.from + (r + 1) * DAY_MS);
      theirs.push(...ordersAt(rand, names, Array(run(rand)).fill(at), customer));
      orders.push(...ordersAt(rand, names, Array(rand.int(20, 100)).fill(at), pool));
    }
    const spread = bulk.size === undefined ? rand.int(50, 200) : bulk.size;
    theirs.push(...ordersAt(rand, names, ordinaryInstants(rand, spread, weeks.from, weeks.to), customer));
    orders.push(...theirs, ...ordersAt(rand, names, ordinaryInstants(rand, rand.int(50, 150), weeks.from, weeks.to), pool));
    return { path: `/customers/${customer}/orders`, expected: { kind: 'customer', customer, orders: sortOrders(theirs) } };
  };
  const looping = make(day, { runs: family.runs });
  const ordinary = make(day + 30, { runs: 0, size: looping.expected.orders.length });
  return { family, orders: shuffle(rand, orders), looping, ordinary };
}

function compareOrders(a, b) {
  if (a.placedAt !== b.placedAt) return a.placedAt - b.placedAt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

const sortOrders = (orders) => [...orders].sort(compareOrders);

function shuffle(rand, list) {
  for (let i = list.length - 1; i > 0; i--) {
    const j = rand.int(0, i);
    [list[i], list[j]] = [list[j], list[i]];
  }
  return list;
}

/** Orders as the API takes and gives them: placedAt as an ISO 8601 time. */
const asJson = (order) => ({ id: order.id, customer: order.customer, placedAt: iso(order.placedAt), total: order.total });

/**
 * What is wrong with an answer to a read, or null when it is the
 * contract's: status 200, the period (or customer) echoed, the count, and
 * every order once, in (placedAt, id) order, as imported.
 */
function readProblem(res, expected) {
  if (res instanceof Error) return res.message;
  if (res.status !== 200) return `status ${res.status}${res.body ? `: ${res.body.slice(0, 100)}` : ''}`;
  let body;
  try {
    body = JSON.parse(res.body);
  } catch {
    return `not JSON: ${res.body.slice(0, 80)}`;
  }
  if (!body || !Array.isArray(body.orders)) return 'no "orders" list in the answer';
  if (expected.kind === 'period' && (body.from !== iso(expected.from) || body.to !== iso(expected.to))) {
    return `the period echoed as ${body.from} – ${body.to}, not ${iso(expected.from)} – ${iso(expected.to)}`;
  }
  if (expected.kind === 'customer' && body.customer !== expected.customer) return `customer echoed as ${JSON.stringify(body.customer)}`;
  const want = expected.orders;
  const got = body.orders;
  if (got.length !== want.length) {
    const ids = new Set(got.map((o) => o && o.id));
    const missing = want.filter((o) => !ids.has(o.id));
    const repeated = got.length - ids.size;
    const what = [
      missing.length ? `${missing.length} missing (e.g. ${missing[0].id}, placed at ${iso(missing[0].placedAt)})` : null,
      repeated > 0 ? `${repeated} listed twice` : null,
    ].filter(Boolean);
    return `${got.length} orders where there are ${want.length}${what.length ? `: ${what.join(', ')}` : ''}`;
  }
  if (body.count !== want.length) return `"count": ${body.count}, for ${want.length} orders`;
  for (let i = 0; i < want.length; i++) {
    const w = asJson(want[i]);
    const g = got[i] || {};
    if (g.id !== w.id) {
      const where = got.findIndex((o) => o && o.id === w.id);
      return `order ${i + 1} of ${want.length} is ${g.id}, where ${w.id} (placed at ${w.placedAt}) belongs${where >= 0 ? ` (it is at ${where + 1})` : ''}: orders come in (placedAt, id) order`;
    }
    if (g.customer !== w.customer || g.placedAt !== w.placedAt || g.total !== w.total) {
      return `order ${w.id} reads ${JSON.stringify(g)}, not ${JSON.stringify(w)}`;
    }
  }
  return null;
}

module.exports = { generator, namer, makeCase, readProblem, asJson, ordinaryInstants, ordersAt, sortOrders, FAMILIES, STORE_MAX_LIMIT, iso, DAY_MS };
