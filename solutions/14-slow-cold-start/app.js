'use strict';
// The storefront's page server: it renders product, search, cart and
// recommendation pages for the shop's 60 markets, in each market's language,
// with the market's currency and VAT, from the company's services
// (services.js stands in for them). It is deployed on many small instances
// that start and stop with the traffic: each new one must answer quickly.
//
// prepare.js lays out the files it reads (the @shop/toolkit package, the
// markets' configuration, the templates) the first time the lab runs.
//
// The fix: start-up does only what every request needs, and does the rest
// when a request first needs it.
// - From @shop/toolkit, the two small modules the pages use, not the whole
//   package (its index requires every one of its ~600 modules).
// - A market's settings are read when a request for that market first
//   arrives, and kept; so is each template, which Handlebars compiles the
//   first time it renders it (a page of one market: a millisecond or two).
// - The services are independent of each other: the app starts connecting
//   to all of them at once, first thing, and waits for them (the longest
//   one, not their sum) only before it listens. It listens when every page
//   can be answered.
const { CONFIG_DIR, TEMPLATES_DIR } = require('../../labs/14-slow-cold-start/prepare');
const { connect, SERVICES } = require('../../labs/14-slow-cold-start/services');

// Connections take their time on the network, not on this process's CPU:
// they run while the rest of the start-up does.
const connecting = Promise.all(SERVICES.map(async (name) => [name, await connect(name)]));

const fs = require('node:fs');
const path = require('node:path');
const express = require('express');
const Handlebars = require('handlebars');
const { formatMoney, withVat } = require('@shop/toolkit/money');
const { slugify } = require('@shop/toolkit/text');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

// --- Configuration: every market's settings, over the defaults. -----------

/** `over` merged into a copy of `base`, objects key by key (arrays are replaced). */
function merge(base, over) {
  const out = structuredClone(base);
  for (const [key, value] of Object.entries(over)) {
    const plain = value && typeof value === 'object' && !Array.isArray(value);
    out[key] = plain && out[key] && typeof out[key] === 'object' ? merge(out[key], value) : value;
  }
  return out;
}

/** Freezes an object and everything in it: settings must not change while the app runs. */
function deepFreeze(value) {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

const readJson = (file) => JSON.parse(fs.readFileSync(path.join(CONFIG_DIR, file), 'utf8'));
let defaults; // config/defaults.json, read with the first market
const markets = new Map(); // code → settings, for the markets asked for so far

/** A market's settings, read the first time they are asked for; undefined for an unknown market. */
function marketSettings(code) {
  if (!/^[a-z]{2}$/.test(code)) return undefined;
  if (!markets.has(code)) {
    let over;
    try {
      over = readJson(`markets/${code}.json`);
    } catch (err) {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    }
    defaults ??= readJson('defaults.json');
    markets.set(code, deepFreeze(merge(defaults, over)));
  }
  return markets.get(code);
}

// --- Templates: every page of the storefront, in every language. ----------

const templates = new Map(); // 'de/product' → its template, for the pages rendered so far

/** A page's template in a language, read the first time it is asked for (Handlebars compiles it when it first renders it). */
function template(language, page) {
  const key = `${language}/${page}`;
  if (!templates.has(key)) templates.set(key, Handlebars.compile(fs.readFileSync(path.join(TEMPLATES_DIR, language, `${page}.hbs`), 'utf8')));
  return templates.get(key);
}

let services; // name → client, once connected

// --- Pages. ----------------------------------------------------------------

/** What every page shows about its market. */
function marketView(settings, flags) {
  const { market, shipping, seo } = settings;
  return {
    market: { code: market.code, name: market.name, titleSuffix: seo.titleSuffix },
    flags,
    freeDeliveryFrom: formatMoney(shipping.freeFromMinorUnits, market.currency, market.locale),
  };
}

/** A product's price with its market's VAT, formatted for the market. */
async function priceOf(sku, settings) {
  const { market } = settings;
  const net = await services.pricing.netPrice(sku, market.code);
  return { gross: withVat(net, market.vatRate), text: formatMoney(withVat(net, market.vatRate), market.currency, market.locale) };
}

function render(res, settings, page, view) {
  res.type('html').send(template(settings.market.language, page)(view));
}

const app = express();

/** Every page is under a market: /de/…, /fr/…; an unknown market is a 404. */
app.param('market', (req, res, next, code) => {
  const settings = marketSettings(code);
  if (!settings) {
    res.status(404).type('text').send(`no market ${code}`);
    return;
  }
  req.settings = settings;
  next();
});

app.get('/:market/products/:sku', async (req, res) => {
  const { settings } = req;
  const product = await services.catalogue.product(req.params.sku);
  if (!product) {
    res.status(404).type('text').send('no such product');
    return;
  }
  const [price, stock, flags] = await Promise.all([
    priceOf(product.sku, settings),
    services.inventory.stock(product.sku, settings.market.warehouse),
    services.flags.flags(settings.market.code),
  ]);
  render(res, settings, 'product', {
    ...marketView(settings, flags),
    product,
    price: price.text,
    inStock: stock > 0,
    stock,
    deliveryDays: settings.shipping.deliveryDays,
  });
});

app.get('/:market/search', async (req, res) => {
  const { settings } = req;
  const query = String(req.query.q ?? '').slice(0, 100);
  const skus = await services.search.search(query);
  const results = await Promise.all(
    skus.map(async (sku) => {
      const product = await services.catalogue.product(sku);
      return { sku, name: product.name, slug: slugify(product.name), price: (await priceOf(sku, settings)).text };
    }),
  );
  const flags = await services.flags.flags(settings.market.code);
  render(res, settings, 'search', { ...marketView(settings, flags), query, results });
});

app.get('/:market/cart/:id', async (req, res) => {
  const { settings } = req;
  const cart = await services.carts.cart(req.params.id);
  if (!cart) {
    res.status(404).type('text').send('no such cart');
    return;
  }
  const { market } = settings;
  let total = 0;
  const lines = await Promise.all(
    cart.lines.map(async ({ sku, quantity }) => {
      const product = await services.catalogue.product(sku);
      const price = await priceOf(sku, settings);
      total += price.gross * quantity;
      return { name: product.name, quantity, price: formatMoney(price.gross * quantity, market.currency, market.locale) };
    }),
  );
  const flags = await services.flags.flags(market.code);
  render(res, settings, 'cart', { ...marketView(settings, flags), lines, total: formatMoney(total, market.currency, market.locale) });
});

app.get('/:market/products/:sku/recommendations', async (req, res) => {
  const { settings } = req;
  const skus = await services.recommendations.recommendations(req.params.sku);
  if (skus.length === 0) {
    res.status(404).type('text').send('no such product');
    return;
  }
  const products = await Promise.all(
    skus.map(async (sku) => {
      const product = await services.catalogue.product(sku);
      return { sku, name: product.name, slug: slugify(product.name), price: (await priceOf(sku, settings)).text };
    }),
  );
  const flags = await services.flags.flags(settings.market.code);
  render(res, settings, 'recommendations', { ...marketView(settings, flags), products });
});

app.get('/health', (req, res) => res.json({ status: 'ok' }));

async function start() {
  services = Object.fromEntries(await connecting);
  const server = app.listen(PORT, HOST, (err) => {
    if (err) throw err; // e.g. EADDRINUSE: another app is on this port
    console.log(`Listening on http://${HOST}:${server.address().port}`);
  });
}

start();
