'use strict';
// What lab 14's app must answer (the walkthrough's "The API"), computed here
// from the lab's own data (services.js), the markets' configuration and the
// templates (prepare.js), so the check knows the right page for any request
// it makes up: a market, a product, a search or a cart chosen at random.

const fs = require('node:fs');
const path = require('node:path');
const { randomInt } = require('node:crypto');
const Handlebars = require('handlebars');

const LAB = path.join(__dirname, '..');
const lab = () => require(path.join(LAB, 'prepare.js'));
const services = () => require(path.join(LAB, 'services.js'));
const money = () => require('@shop/toolkit/money');

const settingsCache = new Map();
/** The settings of a market that the pages show: its own over the defaults, as app.js merges them. */
function settingsOf(code) {
  if (!settingsCache.has(code)) {
    const { CONFIG_DIR } = lab();
    const read = (file) => JSON.parse(fs.readFileSync(path.join(CONFIG_DIR, file), 'utf8'));
    const defaults = read('defaults.json');
    const over = read(`markets/${code}.json`);
    settingsCache.set(code, { market: over.market, shipping: { ...defaults.shipping, ...over.shipping }, seo: { ...defaults.seo, ...over.seo } });
  }
  return settingsCache.get(code);
}

const templateCache = new Map();
function render(language, page, view) {
  const key = `${language}/${page}`;
  if (!templateCache.has(key)) {
    templateCache.set(key, Handlebars.compile(fs.readFileSync(path.join(lab().TEMPLATES_DIR, language, `${page}.hbs`), 'utf8')));
  }
  return templateCache.get(key)(view);
}

function slugify(text) {
  return require('@shop/toolkit/text').slugify(text);
}

function priceOf(sku, settings) {
  const { formatMoney, withVat } = money();
  const { market } = settings;
  const gross = withVat(services().data.netPrice(sku, market.code), market.vatRate);
  return { gross, text: formatMoney(gross, market.currency, market.locale) };
}

function marketView(settings) {
  const { market, shipping, seo } = settings;
  return {
    market: { code: market.code, name: market.name, titleSuffix: seo.titleSuffix },
    flags: services().data.flags(market.code),
    freeDeliveryFrom: money().formatMoney(shipping.freeFromMinorUnits, market.currency, market.locale),
  };
}

const html = (body) => ({ status: 200, type: 'html', body });
const missing = (text) => ({ status: 404, text });

/**
 * The page the app must answer for `path` (one of the forms requests()
 * makes): { status: 200, type: 'html', body } or { status: 404 }.
 */
function expected(request) {
  const { data } = services();
  const { kind, market, sku, query, cartId } = request;
  if (kind === 'health') return { status: 200, type: 'json', body: { status: 'ok' } };
  if (!lab().MARKETS.some((m) => m.code === market)) return missing(`no market ${market}`);
  const settings = settingsOf(market);
  const language = settings.market.language;
  if (kind === 'product') {
    const product = data.product(sku);
    if (!product) return missing('no such product');
    const stock = data.stock(product.sku, settings.market.warehouse);
    return html(
      render(language, 'product', {
        ...marketView(settings),
        product,
        price: priceOf(product.sku, settings).text,
        inStock: stock > 0,
        stock,
        deliveryDays: settings.shipping.deliveryDays,
      }),
    );
  }
  if (kind === 'search') {
    const results = data.search(query).map((s) => ({ sku: s, name: data.product(s).name, slug: slugify(data.product(s).name), price: priceOf(s, settings).text }));
    return html(render(language, 'search', { ...marketView(settings), query, results }));
  }
  if (kind === 'cart') {
    const cart = data.cart(cartId);
    if (!cart) return missing('no such cart');
    const { formatMoney } = money();
    const { currency, locale } = settings.market;
    let total = 0;
    const lines = cart.lines.map(({ sku: line, quantity }) => {
      const price = priceOf(line, settings);
      total += price.gross * quantity;
      return { name: data.product(line).name, quantity, price: formatMoney(price.gross * quantity, currency, locale) };
    });
    return html(render(language, 'cart', { ...marketView(settings), lines, total: formatMoney(total, currency, locale) }));
  }
  if (kind === 'recommendations') {
    const skus = data.recommendations(sku);
    if (skus.length === 0) return missing('no such product');
    const products = skus.map((s) => ({ sku: s, name: data.product(s).name, slug: slugify(data.product(s).name), price: priceOf(s, settings).text }));
    return html(render(language, 'recommendations', { ...marketView(settings), products }));
  }
  throw new Error(`no such kind of request: ${kind}`);
}

/** The request's path, as a browser would send it. */
function pathOf({ kind, market, sku, query, cartId }) {
  if (kind === 'health') return '/health';
  if (kind === 'product') return `/${market}/products/${sku}`;
  if (kind === 'search') return `/${market}/search?q=${encodeURIComponent(query)}`;
  if (kind === 'cart') return `/${market}/cart/${cartId}`;
  return `/${market}/products/${sku}/recommendations`;
}

/** `count` distinct market codes, at random. */
function someMarkets(count) {
  const codes = lab().MARKETS.map((m) => m.code);
  const picked = new Set();
  while (picked.size < Math.min(count, codes.length)) picked.add(codes[randomInt(codes.length)]);
  return [...picked];
}

/**
 * One request to every route the app serves, in one market chosen at
 * random, each for a product, search or cart chosen at random; and /health.
 */
function everyRoute() {
  const { PRODUCTS, CARTS, skuOf, data } = services();
  const [a] = someMarkets(1);
  const [b, c, d] = [a, a, a];
  const sku = () => skuOf(1 + randomInt(PRODUCTS));
  // Words of a real product's name, so the search finds something.
  const query = data.product(sku()).name;
  return [
    { kind: 'product', market: a, sku: sku() },
    { kind: 'search', market: b, query },
    { kind: 'cart', market: c, cartId: 1 + randomInt(CARTS) },
    { kind: 'recommendations', market: d, sku: sku() },
    { kind: 'health' },
  ];
}

/** Requests whose answer is a 404, and pages of other markets: the rest of the API. */
function theRest() {
  const { PRODUCTS, CARTS, skuOf } = services();
  const markets = someMarkets(3);
  return [
    { kind: 'product', market: markets[0], sku: skuOf(PRODUCTS + 1 + randomInt(1000)) },
    { kind: 'cart', market: markets[1], cartId: CARTS + 1 + randomInt(1000) },
    { kind: 'product', market: 'xx', sku: skuOf(1 + randomInt(PRODUCTS)) },
    { kind: 'search', market: markets[2], query: 'no such thing' },
    { kind: 'product', market: markets[2], sku: skuOf(1 + randomInt(PRODUCTS)) },
  ];
}

/** What is wrong with an answer to `request`, or null. */
function problemWith(request, res) {
  if (res instanceof Error) return res.message;
  const want = expected(request);
  if (res.status !== want.status) return `status ${res.status} instead of ${want.status}: ${String(res.body).replace(/\s+/g, ' ').slice(0, 100)}`;
  if (want.status === 404) return null;
  if (want.type === 'json') {
    let got;
    try {
      got = JSON.parse(res.body);
    } catch {
      return `not JSON: ${String(res.body).slice(0, 80)}`;
    }
    return got && got.status === 'ok' ? null : `${res.body.slice(0, 80)} instead of {"status":"ok"}`;
  }
  if (!/^text\/html\b/.test(String(res.headers['content-type']))) return `content-type ${res.headers['content-type']} instead of text/html`;
  if (res.body === want.body) return null;
  const got = res.body.split('\n');
  const wanted = want.body.split('\n');
  const line = wanted.findIndex((l, i) => l !== got[i]);
  return `not the page the templates render: line ${line + 1} is ${JSON.stringify((got[line] ?? '(missing)').trim().slice(0, 90))}, expected ${JSON.stringify(wanted[line].trim().slice(0, 90))}`;
}

module.exports = { everyRoute, theRest, pathOf, expected, problemWith };
