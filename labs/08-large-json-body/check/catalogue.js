'use strict';
// Lab 08's import payloads: product catalogues as JSON text, built from a
// seed, and the summary a correct import of each one reports. The totals are
// added up while the text is built, so the check never parses its own
// payloads, and every seed gives different prices, stock and invalid
// records, so no import can be answered from an earlier one.

const COUNT = 20_000; // ≈ 4.3 MB of JSON: one JSON.parse takes tens of ms

const WORDS = ['steel', 'oak', 'linen', 'copper', 'mini', 'pro', 'classic', 'eco', 'travel', 'kitchen', 'garden', 'desk', 'lamp', 'chair', 'mug', 'kettle', 'rug', 'shelf', 'bag', 'bottle'];

/** A 32-bit hash of two integers (murmur3's finaliser): the same on every machine. */
function mix(a, b) {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const word = (h, shift) => WORDS[(h >>> shift) % WORDS.length];

/** The product code of record `i`: P000000, P000001, … (the same in every import). */
function skuOf(i) {
  return `P${String(i).padStart(6, '0')}`;
}

// The fields that do not change from one import to the next, as JSON text.
const fixedParts = [];
function fixedPart(i) {
  if (fixedParts[i] === undefined) {
    const h = mix(i, 7);
    const g = mix(i, 11);
    fixedParts[i] =
      `"category":"${word(h, 0)}","tags":["${word(h, 8)}","${word(h, 16)}"],` +
      `"dimensions":{"widthMm":${g % 1000},"heightMm":${(g >>> 10) % 1000},"weightG":${h % 20000}},` +
      `"updatedAt":"${new Date(1_700_000_000_000 + (g % 30_000_000) * 1000).toISOString()}"}`;
  }
  return fixedParts[i];
}

// A supplier's full product data: besides the fields the shop reads, each
// product lists its technical features by the supplier's feature code
// ("F1234": 12), FEATURES of them out of FEATURE_CODES, a different set in a
// different order for every product. Per byte, that costs JSON.parse many
// times the work of the standard records: V8 gives objects that have the
// same keys in the same order one shape, and every object here needs a shape
// of its own (the parse times per megabyte are in check/margins.json's
// `about`). The check sends these where an import must expose a parse on the
// main thread: much to parse, few bytes to receive.
const FEATURES = 20;
const FEATURE_CODES = 5000;
const featureParts = [];
function featurePart(i) {
  if (featureParts[i] === undefined) {
    const used = new Set();
    const entries = [];
    for (let k = 0; entries.length < FEATURES; k++) {
      const code = mix(i, k + 3) % FEATURE_CODES;
      if (used.has(code)) continue;
      used.add(code);
      entries.push(`"F${code}":${mix(i, k) % 100}`);
    }
    featureParts[i] = `"features":{${entries.join(',')}}}`;
  }
  return featureParts[i];
}

/**
 * Record `i` of import `seed`: its JSON text, and whether a correct import
 * accepts it. About 3% are invalid, a different 3% in every import: a
 * negative price, a fractional stock, or an empty name. With `features`,
 * the record carries its technical features instead of the shop's
 * category, tags, dimensions and date.
 */
function record(seed, i, { features = false } = {}) {
  const h = mix(seed, i);
  const fault = mix(i, seed) % 100;
  let priceCents = 99 + (h % 50_000);
  let stock = (h >>> 16) % 500;
  let name = `${word(h, 3)} ${word(h, 9)} ${word(h, 21)}`;
  if (fault === 0) priceCents = -priceCents;
  if (fault === 1) stock += 0.5;
  if (fault === 2) name = '';
  const text = `{"sku":"${skuOf(i)}","name":"${name}","priceCents":${priceCents},"stock":${stock},${features ? featurePart(i) : fixedPart(i)}`;
  return { text, valid: fault > 2, priceCents, stock };
}

/**
 * @param {number} seed which import (any integer ≥ 0)
 * @param {object} [options]
 * @param {number} [options.count] how many records
 * @param {boolean} [options.features] records with technical features (see featurePart)
 * @returns {{body:string, summary:{received:number, imported:number, rejected:number, units:number, valueCents:number}}}
 */
function catalogue(seed, { count = COUNT, features = false } = {}) {
  const summary = { received: count, imported: 0, rejected: 0, units: 0, valueCents: 0 };
  const parts = new Array(count);
  for (let i = 0; i < count; i++) {
    const r = record(seed, i, { features });
    parts[i] = r.text;
    if (r.valid) {
      summary.imported++;
      summary.units += r.stock;
      summary.valueCents += r.priceCents * r.stock;
    } else {
      summary.rejected++;
    }
  }
  return { body: `{"products":[${parts.join(',')}]}`, summary };
}

// One mebibyte of spaces, sent as many times as a padded body needs: a body
// of tens of MB costs the check no memory and no time to build (a 60 MB
// string took 0.7 s to turn into bytes on a 2-vCPU VM).
const SPACES = Buffer.alloc(1 << 20, 0x20);

/**
 * `body` followed by spaces (still valid JSON) up to `padTo` bytes, as a
 * list of Buffers to send in order.
 */
function padded(body, padTo) {
  const chunks = [Buffer.from(body)];
  for (let left = padTo - chunks[0].length; left > 0; left -= SPACES.length) chunks.push(left >= SPACES.length ? SPACES : SPACES.subarray(0, left));
  return chunks;
}

// The load sends imports back to back, and building 4.3 MB of JSON text per
// import would keep the check's own event loop busy for about as long as
// the app takes to parse it, and the check times /health from that same
// loop. So an import under load is the base catalogue (seed 0) with one
// block of 1 000 records (5%) from its own seed: still different text and
// different totals every time. The base blocks are encoded once, as
// Buffers, and the body is sent as a list of them: per import, only the
// new block is built.
const BLOCK = 1000;
const bases = { standard: [], features: [] };

function blockOf(seed, k, count, features) {
  const summary = { imported: 0, rejected: 0, units: 0, valueCents: 0 };
  const parts = [];
  for (let i = k * BLOCK; i < Math.min((k + 1) * BLOCK, count); i++) {
    const r = record(seed, i, { features });
    parts.push(r.text);
    if (r.valid) {
      summary.imported++;
      summary.units += r.stock;
      summary.valueCents += r.priceCents * r.stock;
    } else {
      summary.rejected++;
    }
  }
  // Each block but the first starts with the comma that separates it from the one before.
  return { bytes: Buffer.from(`${k ? ',' : ''}${parts.join(',')}`), summary };
}

/**
 * An import for the load: seed 0's catalogue of `count` records with block
 * (seed mod its number of blocks) taken from `seed`, as a list of Buffers to
 * send in order (`chunks`, `length` bytes in all) and the summary a correct
 * import reports. The base blocks are kept for the next import. `features`:
 * records with technical features (see featurePart).
 */
function loadCatalogue(seed, count = COUNT, { features = false } = {}) {
  const blocks = Math.ceil(count / BLOCK);
  const full = bases[features ? 'features' : 'standard']; // seed 0's full blocks, by index
  // A full block is the same in a catalogue of any size; a last, partial one is not kept.
  const baseBlock = (j) => ((j + 1) * BLOCK > count ? blockOf(0, j, count, features) : (full[j] ??= blockOf(0, j, count, features)));
  const k = ownBlock(seed, count);
  const chosen = Array.from({ length: blocks }, (_, j) => (j === k ? blockOf(seed, k, count, features) : baseBlock(j)));
  const summary = { received: count, imported: 0, rejected: 0, units: 0, valueCents: 0 };
  for (const b of chosen) for (const f of ['imported', 'rejected', 'units', 'valueCents']) summary[f] += b.summary[f];
  const chunks = [OPEN, ...chosen.map((b) => b.bytes), CLOSE];
  return { chunks, length: chunks.reduce((n, c) => n + c.length, 0), summary };
}

/**
 * Builds and keeps seed 0's full blocks for catalogues of up to `count`
 * records, one block at each step of the iterator it returns, so that its
 * caller can let other work run between blocks.
 */
function* baseBlocks(count, { features = false } = {}) {
  const full = bases[features ? 'features' : 'standard'];
  for (let j = 0; (j + 1) * BLOCK <= count; j++) {
    full[j] ??= blockOf(0, j, count, features);
    yield j;
  }
}

/** The one block of loadCatalogue(seed, count) made from `seed`: the others are seed 0's. */
function ownBlock(seed, count) {
  return seed % Math.ceil(count / BLOCK);
}

/** The seed that record `i` of loadCatalogue(seed, count) is made from. */
function loadSeedOf(seed, i, count = COUNT) {
  return Math.floor(i / BLOCK) === ownBlock(seed, count) ? seed : 0;
}
const OPEN = Buffer.from('{"products":[');
const CLOSE = Buffer.from(']}');

module.exports = { catalogue, padded, loadCatalogue, baseBlocks, loadSeedOf, record, skuOf, COUNT };
