'use strict';
// Reference fix for lab 02: the same shop API on Fastify 5. Same routes,
// same status codes, same JSON; the router is a radix tree instead of a list
// walked in order, per-request work runs in hooks instead of a middleware
// chain, and the hot responses are serialised by functions compiled from
// their JSON schemas.
const crypto = require('node:crypto');
const Fastify = require('fastify');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const RESOURCES = [
  'users', 'accounts', 'sessions', 'addresses', 'orders', 'invoices',
  'payments', 'refunds', 'carts', 'wishlists', 'categories', 'reviews',
  'shipments', 'warehouses', 'suppliers', 'coupons',
];

const ADJECTIVES = ['Small', 'Large', 'Blue', 'Red', 'Steel', 'Oak', 'Quiet', 'Rapid'];
const NOUNS = ['Lamp', 'Chair', 'Kettle', 'Desk', 'Shelf', 'Mug', 'Clock', 'Rug', 'Fan'];
const catalogue = Array.from({ length: 1000 }, (_, i) => ({
  id: i + 1,
  name: `${ADJECTIVES[i % ADJECTIVES.length]} ${NOUNS[i % NOUNS.length]} ${i + 1}`,
  price: (((i * 7919) % 20000) + 99) / 100,
}));

const item = {
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string' }, price: { type: 'number' } },
  required: ['id', 'name', 'price'],
};
const problem = {
  type: 'object',
  properties: { error: { type: 'string' }, message: { type: 'string' } },
  required: ['error', 'message'],
};

const app = Fastify({
  // Express matches /items/ and /ITEMS as /items; keep the API's behaviour.
  routerOptions: { ignoreTrailingSlash: true, caseSensitive: false },
});

app.addHook('onRequest', async (request, reply) => {
  reply.headers({
    'x-request-id': request.headers['x-request-id'] || crypto.randomUUID(),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'access-control-allow-origin': 'https://shop.example',
    vary: 'Origin',
  });
});

// Response times per route, for the metrics endpoint.
const timings = new Map();
app.addHook('onResponse', async (request, reply) => {
  const key = `${request.method} ${request.routeOptions.url || 'unmatched'}`;
  const entry = timings.get(key) || { count: 0, totalMs: 0 };
  entry.count += 1;
  entry.totalMs += reply.elapsedTime;
  timings.set(key, entry);
});

function pathOf(request) {
  return request.url.split('?')[0];
}

function notFound(request, reply) {
  return reply.code(404).send({ error: 'not_found', message: `No route for ${request.method} ${pathOf(request)}` });
}

app.setNotFoundHandler(notFound);

// Bodies are read as express.json() read them, so every answer stays the
// same: JSON only when the content type says so; an empty JSON body is {};
// JSON whose first character is not { or [ (a bare string, a number, null)
// is refused as invalid, like malformed JSON; any other content type is not
// parsed at all, so the handler sees no body.
app.removeAllContentTypeParsers();
app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done) => {
  if (text.length === 0) return done(null, {});
  const first = text.trimStart()[0];
  try {
    if (first !== '{' && first !== '[') throw new SyntaxError('not an object or array');
    done(null, JSON.parse(text));
  } catch {
    done(Object.assign(new Error('body is not valid JSON'), { statusCode: 400 }));
  }
});
app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, raw, done) => done(null, undefined));

// Invalid JSON bodies and the like: the same shape as every other error.
app.setErrorHandler((err, request, reply) => {
  const status = err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
  reply.code(status).send({ error: status === 400 ? 'bad_request' : 'error', message: err.message });
});

const isObject = (body) => body !== null && typeof body === 'object' && !Array.isArray(body);

for (const name of RESOURCES) {
  const store = new Map();
  let nextId = 1;
  const find = (request, reply) => {
    const record = store.get(Number(request.params.id));
    if (!record) notFound(request, reply);
    return record;
  };

  app.get(`/${name}`, async () => [...store.values()]);
  app.get(`/${name}/:id`, async (request, reply) => find(request, reply) || reply);
  app.post(`/${name}`, async (request, reply) => {
    if (!isObject(request.body)) {
      return reply.code(400).send({ error: 'bad_request', message: 'body must be a JSON object' });
    }
    const record = { ...request.body, id: nextId++ };
    store.set(record.id, record);
    return reply.code(201).send(record);
  });
  app.put(`/${name}/:id`, async (request, reply) => {
    if (!find(request, reply)) return reply;
    const record = { ...request.body, id: Number(request.params.id) };
    store.set(record.id, record);
    return record;
  });
  app.patch(`/${name}/:id`, async (request, reply) => {
    const record = find(request, reply);
    if (!record) return reply;
    Object.assign(record, request.body, { id: record.id });
    return record;
  });
  app.delete(`/${name}/:id`, async (request, reply) => {
    if (!find(request, reply)) return reply;
    store.delete(Number(request.params.id));
    return reply.code(204).send();
  });
}

app.get('/metrics', async () => Object.fromEntries(timings));

app.get(
  '/items',
  { schema: { response: { 200: { type: 'array', items: item }, 400: problem } } },
  async (request, reply) => {
    const limit = request.query.limit === undefined ? 20 : Number(request.query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      return reply.code(400).send({ error: 'bad_request', message: 'limit must be an integer from 1 to 100' });
    }
    return catalogue.slice(0, limit);
  },
);

app.get('/items/:id', { schema: { response: { 200: item, 404: problem } } }, async (request, reply) => {
  const found = catalogue[Number(request.params.id) - 1];
  return found || notFound(request, reply);
});

app.get(
  '/',
  { schema: { response: { 200: { type: 'object', properties: { hello: { type: 'string' } } } } } },
  async () => ({ hello: 'world' }),
);

app.listen({ port: PORT, host: HOST }, (err) => {
  if (err) throw err; // e.g. EADDRINUSE: another app is on this port
  console.log(`Listening on http://${HOST}:${app.server.address().port}`);
});
