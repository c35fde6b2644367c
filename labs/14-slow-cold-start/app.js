'use strict';
// The storefront's page server: it renders product, search, cart and
// recommendation pages for the shop's 60 markets, in each market's language,
// with the market's currency and VAT, from the company's services
// (services.js stands in for them). It is deployed on many small instances
// that start and stop with the traffic: each new one must answer quickly.
//
// prepare.js lays out the files it reads (the @shop/toolkit package, the
// markets' configuration, the templates) the first time the lab runs.
const { CONFIG_DIR, TEMPLATES_DIR } = require('./prepare');
const fs = require('node:fs');
const path = require('node:path');
const express = require('express');
const Handlebars = require('handlebars');
const { formatMoney, withVat, slugify } = require('@shop/toolkit');
const { connect, SERVICES } = require('./services');

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

function loadConfig() {
  const read = (file) => JSON.parse(fs.readFileSync(path.join(CONFIG_DIR, file), 'utf8'));
  const defaults = read('defaults.json');
  const markets = new Map();
  for (const file of fs.readdirSync(path.join(CONFIG_DIR, 'markets'))) {
    markets.set(path.basename(file, '.json'), deepFreeze(merge(defaults, read(`markets/${file}`))));
  }
  return markets;
}

// --- Templates: every page of the storefront, in every language. ----------

function loadTemplates() {
  const templates = new Map();
  for (const language of fs.readdirSync(TEMPLATES_DIR)) {
    if (!fs.statSync(path.join(TEMPLATES_DIR, language)).isDirectory()) continue;
    for (const file of fs.readdirSync(path.join(TEMPLATES_DIR, language))) {
      const source = fs.readFileSync(path.join(TEMPLATES_DIR, language, file), 'utf8');
      const template = Handlebars.compile(source);
      // Handlebars compiles a template the first time it renders it: render
      // each one now, so that no customer waits for a compilation.
      template({});
      templates.set(`${language}/${path.basename(file, '.hbs')}`, template);
    }
  }
  return templates;
}

const config = loadConfig();
const templates = loadTemplates();
const services = {}; // name → client, once connected

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
  res.type('html').send(templates.get(`${settings.market.language}/${page}`)(view));
}

const app = express();

/** Every page is under a market: /de/…, /fr/…; an unknown market is a 404. */
app.param('market', (req, res, next, code) => {
  const settings = config.get(code);
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
  for (const name of SERVICES) services[name] = await connect(name);
  const server = app.listen(PORT, HOST, (err) => {
    if (err) throw err; // e.g. EADDRINUSE: another app is on this port
    console.log(`Listening on http://${HOST}:${server.address().port}`);
  });
}

start();
