'use strict';
// The services the storefront's page server depends on: its catalogue
// database, inventory, pricing, search, the carts store, recommendations and
// feature flags. Here they run inside the app's own process, standing in for
// services across a network: connect(name) resolves to a client once the
// connection is made, which takes CONNECT_MS (a TCP connection, TLS and
// authentication to a service in another zone), and each call on a client
// answers on the next turn of the event loop. The data is made up but
// stable: the same question always gets the same answer.
//
// You do not need to change this file. It behaves the same way whoever
// starts the app: `node app.js`, `npx workbook run`, the profilers and the
// check.

/** How long connecting to any one service takes, in ms. */
const CONNECT_MS = 80;

/** Every service app.js connects to, in the order it connects to them. */
const SERVICES = ['catalogue', 'inventory', 'pricing', 'search', 'carts', 'recommendations', 'flags'];

/** Products are SKU-000001 to SKU-<PRODUCTS>. */
const PRODUCTS = 20_000;
/** Carts are numbered 1 to CARTS. */
const CARTS = 50_000;

const KINDS = ['desk lamp', 'notebook', 'kettle', 'headphones', 'backpack', 'plant pot', 'mug', 'chair', 'bookshelf', 'rug', 'teapot', 'blanket'];
const COLOURS = ['black', 'white', 'oak', 'sage', 'rust', 'navy', 'sand', 'plum'];
const BRANDS = ['Northwind', 'Fabrikam', 'Contoso', 'Tailspin', 'Litware', 'Proseware'];

/** A product's number from its SKU, or 0 when there is no such product. */
function productNumber(sku) {
  const match = /^SKU-(\d{6})$/.exec(String(sku));
  const n = match ? Number(match[1]) : 0;
  return n >= 1 && n <= PRODUCTS ? n : 0;
}

const skuOf = (n) => `SKU-${String(n).padStart(6, '0')}`;

/** The catalogue's record of a product, or null. */
function product(sku) {
  const n = productNumber(sku);
  if (!n) return null;
  return {
    sku: skuOf(n),
    name: `${COLOURS[(n >> 2) % COLOURS.length]} ${KINDS[n % KINDS.length]}`,
    brand: BRANDS[(n * 7) % BRANDS.length],
  };
}

/** Units of a product in a warehouse (0: out of stock). */
function stock(sku, warehouse) {
  const n = productNumber(sku);
  const w = [...String(warehouse)].reduce((sum, c) => sum + c.charCodeAt(0), 0);
  return n ? (n * 31 + w * 17) % 23 : 0;
}

/** A product's net price (before VAT) in a market, in the smallest unit of its currency. */
function netPrice(sku, market) {
  const n = productNumber(sku);
  const m = [...String(market)].reduce((sum, c) => sum * 31 + c.charCodeAt(0), 7) % 9973;
  return n ? 499 + ((n * 7919 + m * 104_729) % 25_000) : null;
}

/** Up to five products whose name contains every word of `query`, best first. */
function search(query) {
  const words = String(query).toLowerCase().split(/\s+/).filter(Boolean);
  const found = [];
  if (words.length === 0) return found;
  for (let n = 1; n <= PRODUCTS && found.length < 5; n += 97) {
    const record = product(skuOf(n));
    if (words.every((w) => record.name.includes(w))) found.push(record.sku);
  }
  return found;
}

/** A cart's lines, or null when there is no such cart. */
function cart(id) {
  const n = Number(id);
  if (!Number.isInteger(n) || n < 1 || n > CARTS) return null;
  const lines = 1 + (n % 4);
  return {
    id: n,
    lines: Array.from({ length: lines }, (_, i) => ({ sku: skuOf(1 + ((n * 131 + i * 977) % PRODUCTS)), quantity: 1 + ((n + i) % 3) })),
  };
}

/** Four products to show beside a product. */
function recommendations(sku) {
  const n = productNumber(sku);
  return n ? [1, 2, 3, 4].map((i) => skuOf(1 + ((n * 37 + i * 1201) % PRODUCTS))) : [];
}

/** The feature flags of a market. */
function flags(market) {
  const m = [...String(market)].reduce((sum, c) => sum + c.charCodeAt(0), 0);
  return { freeDeliveryBanner: m % 3 !== 0 };
}

/** What each service's client can be asked, once connected. */
const API = {
  catalogue: { product },
  inventory: { stock },
  pricing: { netPrice },
  search: { search },
  carts: { cart },
  recommendations: { recommendations },
  flags: { flags },
};

/** A call that answers on the next turn of the event loop, as a reply from the network would. */
function answerSoon(fn) {
  return (...args) => new Promise((resolve) => setImmediate(() => resolve(fn(...args))));
}

/**
 * Connects to one service. Resolves, CONNECT_MS later, to its client: an
 * object whose methods return promises.
 * @param {string} name one of SERVICES
 */
function connect(name) {
  const api = API[name];
  if (!api) return Promise.reject(new Error(`there is no service called ${JSON.stringify(name)}`));
  return new Promise((resolve) => {
    setTimeout(() => {
      const client = { name };
      for (const [method, fn] of Object.entries(api)) client[method] = answerSoon(fn);
      resolve(client);
    }, CONNECT_MS);
  });
}

module.exports = { CONNECT_MS, SERVICES, PRODUCTS, CARTS, connect, data: { product, stock, netPrice, search, cart, recommendations, flags }, skuOf };
