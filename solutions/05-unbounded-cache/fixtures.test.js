'use strict';
// Lab 05's check against fixtures: other real fixes must pass, "fixes" that
// lose the cache's point, break its budget, or keep memory where a
// main-thread heap reading would not see it must fail. Most are the
// reference solution with a few lines changed (derivedApp: a change to the
// solution that breaks a patch fails loudly). The lab's own suite is
// labs/05-unbounded-cache/check/verdicts.test.js.

const path = require('node:path');
const { findLab } = require('../../scripts/lib/labs');
const { describeFixtures } = require('../../test/helpers/lab-verdicts');
const { derivedApp } = require('../../test/helpers/derived-app');

const lab = findLab('05');
const fixture = (name) => path.join(__dirname, 'fixtures', name);
const gate = (result, id) => result.gates.find((g) => g.id === id);
const wrong = (result) => result.responses.filter((r) => !r.pass).map((r) => r.name);

// The lines of the reference solution the fixtures change.
const CACHE = 'const quotes = new LRUCache({ max: 500 });';
const LOOKUP = `  let quote = quotes.get(key);
  if (quote === undefined) {
    quote = priceQuote(product, region, currency);
    quotes.set(key, quote);
  }
  return quote;`;
const cacheOf = (name, replacement) => derivedApp(`05-${name}`, lab.solutionApp, [[CACHE, replacement]]);
const lookupOf = (name, replacement, extra = []) => derivedApp(`05-${name}`, lab.solutionApp, [[LOOKUP, replacement], ...extra]);

/** A Map that forgets in bulk when it is full: its memory is a sawtooth, bounded by 500. */
const SAWTOOTH = (keepAfterDrop) => `  let quote = quotes.get(key);
  if (quote === undefined) {
    quote = priceQuote(product, region, currency);
    if (quotes.size >= 500) {
      // Full: drop the oldest quotes (a Map iterates in insertion order).
      let drop = quotes.size - ${keepAfterDrop};
      for (const old of quotes.keys()) {
        if (drop-- <= 0) break;
        quotes.delete(old);
      }
    }
    quotes.set(key, quote);
  }
  return quote;`;

describe('lab 05 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      [
        'a least-recently-used cache written by hand on a Map',
        lookupOf(
          'map-lru',
          `  let quote = quotes.get(key);
  if (quote === undefined) {
    quote = priceQuote(product, region, currency);
    if (quotes.size >= 500) quotes.delete(quotes.keys().next().value);
  } else {
    quotes.delete(key); // moved to the end: the most recently used
  }
  quotes.set(key, quote);
  return quote;`,
          [[CACHE, 'const quotes = new Map();']],
        ),
      ],
      ['lru-cache with a size limit and a time to live', cacheOf('lru-max-ttl', 'const quotes = new LRUCache({ max: 500, ttl: 10 * 60 * 1000 });')],
      [
        // The check's quotes are 650–760 characters of JSON: 300 000 holds at most about 460.
        "lru-cache bounded by the quotes' size in characters (maxSize)",
        cacheOf('lru-max-size', 'const quotes = new LRUCache({ maxSize: 300_000, sizeCalculation: (quote) => JSON.stringify(quote).length });'),
      ],
      ['a Map that drops its oldest half when it holds 500 (a sawtooth)', lookupOf('drop-half', SAWTOOTH(250), [[CACHE, 'const quotes = new Map();']])],
      ['a Map emptied whenever it holds 500 (a sawtooth)', lookupOf('clear-when-full', SAWTOOTH(0), [[CACHE, 'const quotes = new Map();']])],
      [
        'an LRU cache of the serialised quotes (the bytes sent)',
        derivedApp('05-serialised', lab.solutionApp, [
          [LOOKUP, `  let body = quotes.get(key);
  if (body === undefined) {
    body = JSON.stringify(priceQuote(product, region, currency));
    quotes.set(key, body);
  }
  return body;`],
          ['  res.json(quoteFor(product, region, currency));', "  res.type('json').send(quoteFor(product, region, currency));"],
        ]),
      ],
      ['the pricing and a bounded cache in a worker thread', fixture('worker-cache.js')],
    ],
    cheats: [
      [
        'deleting the cache',
        lookupOf('no-cache', '  return priceQuote(product, region, currency);'),
        (result) => {
          expect(gate(result, 'heap-per-quote').pass).toBe(true);
          expect(gate(result, 'hit-cost').pass).toBe(false);
        },
      ],
      [
        'a key that never repeats (it includes the time)',
        derivedApp('05-timestamp-key', lab.solutionApp, [
          ['  const key = `${product}|${region}|${currency}`;', '  const key = `${product}|${region}|${currency}|${process.hrtime.bigint()}`;'],
          [CACHE, 'const quotes = new Map();'],
        ]),
        (result) => {
          expect(gate(result, 'heap-per-quote').pass).toBe(false);
          expect(gate(result, 'hit-cost').pass).toBe(false);
        },
      ],
      [
        'lru-cache with a time to live and no size limit',
        cacheOf('ttl-only', 'const quotes = new LRUCache({ ttl: 10 * 60 * 1000 });'),
        (result) => expect(gate(result, 'quotes-held').pass).toBe(false),
      ],
      [
        'lru-cache with a time to live purged on time, and no size limit',
        cacheOf('ttl-autopurge', 'const quotes = new LRUCache({ ttl: 10 * 60 * 1000, ttlAutopurge: true });'),
        (result) => expect(gate(result, 'quotes-held').pass).toBe(false),
      ],
      [
        'a cache capped at 800, over the budget of 500',
        cacheOf('cap-800', 'const quotes = new LRUCache({ max: 800 });'),
        (result) => {
          expect(gate(result, 'quotes-held').pass).toBe(false);
          expect(gate(result, 'quotes-held').meaning).toMatch(/more quotes than its budget of 500/);
        },
      ],
      [
        'a bounded cache beside a Set of every key ever seen (the same bug, smaller)',
        derivedApp('05-lru-and-seen-set', lab.solutionApp, [
          [CACHE, `${CACHE}\nconst seen = new Set();`],
          ['  const key = `${product}|${region}|${currency}`;', '  const key = `${product}|${region}|${currency}`;\n  seen.add(key);'],
        ]),
        (result) => {
          expect(gate(result, 'quotes-held').pass).toBe(true);
          expect(gate(result, 'heap-per-quote').pass).toBe(false);
        },
      ],
      [
        'an unbounded cache of Buffers (memory outside the JavaScript heap)',
        derivedApp('05-buffer-cache', lab.solutionApp, [
          [CACHE, 'const quotes = new Map();'],
          [LOOKUP, `  let bytes = quotes.get(key);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(priceQuote(product, region, currency)));
    quotes.set(key, bytes);
  }
  return bytes;`],
          ['  res.json(quoteFor(product, region, currency));', "  res.type('json').send(quoteFor(product, region, currency));"],
        ]),
        (result) => expect(gate(result, 'heap-per-quote').pass).toBe(false),
      ],
      [
        'an unbounded cache moved into a worker thread',
        fixture('worker-cache-unbounded.js'),
        (result) => expect(gate(result, 'heap-per-quote').pass).toBe(false),
      ],
      [
        'a cache of one quote, the last',
        derivedApp('05-last-quote-only', lab.solutionApp, [
          [CACHE, 'let last = null;'],
          [LOOKUP, `  if (last && last.key === key) return last.quote;
  last = { key, quote: priceQuote(product, region, currency) };
  return last.quote;`],
        ]),
        (result) => {
          expect(gate(result, 'heap-per-quote').pass).toBe(true);
          expect(gate(result, 'hit-cost').pass).toBe(false);
        },
      ],
      [
        'a cache that stops admitting quotes once it holds 500',
        lookupOf(
          'first-500-only',
          `  let quote = quotes.get(key);
  if (quote === undefined) {
    quote = priceQuote(product, region, currency);
    if (quotes.size < 500) quotes.set(key, quote);
  }
  return quote;`,
          [[CACHE, 'const quotes = new Map();']],
        ),
        (result) => {
          expect(gate(result, 'heap-per-quote').pass).toBe(true);
          expect(gate(result, 'hit-cost').pass).toBe(false);
        },
      ],
      [
        'handing the pricing to a child process with no cache (little CPU of its own per quote)',
        fixture('offload.js'),
        (result) => expect(wrong(result)).toEqual(expect.arrayContaining(['a repeated quote comes back sooner than a new one', "the app's memory is measured whole"])),
      ],
      [
        'serving from cluster workers (their heap and CPU are not the measured process\'s)',
        fixture('cluster.js'),
        (result) => expect(wrong(result)).toContain("every quote is served by the app's own process"),
      ],
    ],
  });
});
