'use strict';
// The order database's stand-in: 20,000 orders, each with its customer,
// its shipping address and 40 to 2000 lines, the same ones on every run
// (each order is generated from its own number, so nothing is kept in
// memory). find(id) answers as a database query would: the order, or null.

const ORDERS = 20_000;
const PRODUCTS = ['espresso beans', 'filter papers', 'burr grinder', 'milk jug', 'travel mug', 'tamper', 'scale', 'kettle', 'dripper', 'cleaning tablets'];
const CITIES = ['Lyon', 'Porto', 'Leeds', 'Graz', 'Turku', 'Ghent', 'Malmö', 'Bologna'];

/** A small seeded generator (mulberry32): the same order for the same number, always. */
function generator(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min, max) => min + Math.floor(next() * (max - min + 1));
  return { next, int, pick: (list) => list[int(0, list.length - 1)] };
}

const idOf = (n) => `ord_${String(n).padStart(5, '0')}`;

/** The number of an order id ("ord_00042" → 42), or NaN. */
function numberOf(id) {
  const match = /^ord_(\d{5})$/.exec(id);
  const n = match ? Number(match[1]) : NaN;
  return n >= 1 && n <= ORDERS ? n : NaN;
}

/** How many lines order `id` has (what find(id).lines.length says), or NaN, without building it. */
function lineCount(id) {
  const n = numberOf(id);
  return Number.isNaN(n) ? NaN : generator(n * 7919).int(40, 2000);
}

function find(id) {
  const n = numberOf(id);
  if (Number.isNaN(n)) return null;
  const rand = generator(n * 7919);
  const lines = Array.from({ length: rand.int(40, 2000) }, (_, i) => {
    const product = rand.pick(PRODUCTS);
    return {
      line: i + 1,
      sku: `SKU-${rand.int(1000, 9999)}`,
      product,
      quantity: rand.int(1, 6),
      unitPriceCents: rand.int(150, 25_000),
      options: { giftWrap: rand.next() < 0.1, engraving: rand.next() < 0.05 ? `for ${rand.pick(CITIES)}` : null },
    };
  });
  return {
    id: idOf(n),
    customer: { id: `cus_${rand.int(1, 4000)}`, email: `customer${rand.int(1, 4000)}@example.com`, tier: rand.pick(['standard', 'plus', 'business']) },
    placedAt: new Date(Date.UTC(2026, 0, 1) + n * 600_000).toISOString(),
    shipping: { city: rand.pick(CITIES), postcode: String(rand.int(10000, 99999)), method: rand.pick(['standard', 'express']) },
    lines,
  };
}

module.exports = { find, lineCount, idOf, numberOf, ORDERS };
