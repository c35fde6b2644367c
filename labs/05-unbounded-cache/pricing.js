'use strict';
// The pricing model the quote service calls. It belongs to another team:
// treat it as a library and leave it as it is (the check makes sure).
//
// A quote is deterministic: the same product, region and currency always
// get the same figures. What makes it expensive is the demand forecast: a
// seeded simulation of a year of sales, run many times over, from which
// the discount tiers are set. It is pure arithmetic, about a millisecond of
// CPU per quote.

const REGIONS = {
  eu: { tax: 0.21, shipping: 4.9, demand: 1.0 },
  uk: { tax: 0.2, shipping: 5.5, demand: 0.8 },
  us: { tax: 0.0725, shipping: 6.0, demand: 1.3 },
  jp: { tax: 0.1, shipping: 7.2, demand: 0.9 },
  au: { tax: 0.1, shipping: 9.5, demand: 0.6 },
};
// How many units of each currency one euro buys (fixed rates: the model's
// own table, so quotes do not change from one day to the next).
const CURRENCIES = { EUR: 1, USD: 1.08, GBP: 0.85, JPY: 162, AUD: 1.64 };
// A product is named by its catalogue slug: up to 200 characters.
const PRODUCT = /^[a-z0-9][a-z0-9-]{0,199}$/;

const RUNS = 300; // simulated years per quote
const QUANTITIES = [1, 10, 50, 100, 250, 500, 1000];

/** Why a query cannot be quoted, or null when it can. */
function invalidQuery({ product, region, currency }) {
  if (typeof product !== 'string' || !PRODUCT.test(product)) return 'product must be 1 to 200 lowercase letters, digits or dashes';
  if (typeof region !== 'string' || !Object.hasOwn(REGIONS, region)) return `region must be one of ${Object.keys(REGIONS).join(', ')}`;
  if (typeof currency !== 'string' || !Object.hasOwn(CURRENCIES, currency)) return `currency must be one of ${Object.keys(CURRENCIES).join(', ')}`;
  return null;
}

/** A 32-bit seed from a string (FNV-1a). */
function seedOf(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

// A small deterministic random number generator (mulberry32): the state
// advances by a constant step, and each state hashes to a number in [0, 1).
const STEP = 0x6d2b79f5;
function unit(state) {
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/**
 * Units sold per week, averaged over RUNS simulated years of daily demand,
 * for a product whose demand starts at `base` units a day.
 */
function forecastDemand(seed, base) {
  let state = seed | 0;
  const weeks = new Array(52).fill(0);
  for (let run = 0; run < RUNS; run++) {
    let level = base;
    for (let day = 0; day < 364; day++) {
      // Demand drifts from day to day, with a seasonal swell and the odd spike.
      state = (state + STEP) | 0;
      level += (unit(state) - 0.5) * 0.8 + (base - level) * 0.02;
      state = (state + STEP) | 0;
      const spike = unit(state) < 0.01 ? 4 : 1;
      const season = day < 182 ? day / 182 : (364 - day) / 182;
      const sold = level * (0.7 + 0.6 * season) * spike;
      weeks[(day / 7) | 0] += sold > 0 ? sold : 0;
    }
  }
  return weeks.map((units) => Math.round(units / RUNS));
}

function round(amount, currency) {
  const places = currency === 'JPY' ? 0 : 2;
  const factor = 10 ** places;
  return Math.round(amount * factor) / factor;
}

/**
 * Prices one product for one region, in one currency.
 * @returns {{product:string, region:string, currency:string, unitPrice:number,
 *   tiers:Array<{minQuantity:number, discount:number, unitPrice:number}>, taxRate:number,
 *   shipping:number, forecast:number[]}}
 */
function priceQuote(product, region, currency) {
  const rate = CURRENCIES[currency];
  const { tax, shipping, demand } = REGIONS[region];
  const list = 10 + (seedOf(product) % 49000) / 100; // list price in euros
  const seed = seedOf(`${product}/${region}`);
  const forecast = forecastDemand(seed, 5 + unit(seed) * 45 * demand);
  const yearly = forecast.reduce((sum, units) => sum + units, 0);
  // Products that sell well get steeper volume discounts.
  const steepness = Math.min(0.3, yearly / 20000);
  const unitPrice = round(list * rate, currency);
  const tiers = QUANTITIES.map((minQuantity, i) => {
    const discount = Math.round((steepness * i * 1000) / (QUANTITIES.length - 1)) / 1000;
    return { minQuantity, discount, unitPrice: round(list * rate * (1 - discount), currency) };
  });
  return {
    product,
    region,
    currency,
    unitPrice,
    tiers,
    taxRate: tax,
    shipping: round(shipping * rate, currency),
    forecast,
  };
}

module.exports = { priceQuote, invalidQuery, REGIONS, CURRENCIES };
