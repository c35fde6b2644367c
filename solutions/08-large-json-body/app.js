'use strict';
// The product catalogue of a small online shop, with imports parsed off the
// main thread. The same file runs in two roles: on the main thread it is the
// HTTP server; in the worker threads it starts, it parses and checks
// imports. JSON.parse cannot be split into pieces or paused, so the whole
// import (parse, validation, totals) runs in a worker, and the main thread
// only moves bytes in and out, without copying them, and stores the result
// in small batches.
const { availableParallelism } = require('node:os');
const { Worker, isMainThread, parentPort } = require('node:worker_threads');

// The largest import the API accepts. A bigger body is refused with 413.
const MAX_IMPORT = '50mb';
// Imports parsing or waiting for a worker, at most. Each holds its body (up
// to 50 MB) until it is parsed: a queue without a bound is memory without a
// bound. Past it, an import is refused at once with 503 and Retry-After, so
// the supplier's system sends it again later, instead of the process
// running out of memory with every import half done.
const MAX_IMPORTS_IN_FLIGHT = 4;
const STORE_BATCH = 1000;

/** Why a product cannot be imported, or null when it can. */
function problemWith(product) {
  if (product === null || typeof product !== 'object') return 'not an object';
  if (typeof product.sku !== 'string' || product.sku === '') return 'no sku';
  if (typeof product.name !== 'string' || product.name.trim() === '') return 'no name';
  if (!Number.isInteger(product.priceCents) || product.priceCents < 0) return 'priceCents is not a whole number ≥ 0';
  if (!Number.isInteger(product.stock) || product.stock < 0) return 'stock is not a whole number ≥ 0';
  return null;
}

if (isMainThread) {
  serve();
} else {
  parentPort.on('message', ({ id, bytes }) => {
    const { result, transfer } = importCatalogue(bytes);
    parentPort.postMessage({ id, ...result }, transfer);
  });
}

/**
 * In a worker: the whole import. What goes back to the main thread is
 * chosen for what it costs there. The parsed objects would be cloned field
 * by field, at about the cost of parsing them again; so the accepted
 * products go back as their JSON text, one after another in one Buffer
 * whose memory is moved, not copied (movable), with where each one starts and
 * ends; and their skus as JSON text, one a line (JSON.stringify never
 * writes a raw newline).
 */
function importCatalogue(bytes) {
  let body;
  try {
    body = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch (err) {
    return { result: { status: 400, error: `the body is not valid JSON: ${err.message}` }, transfer: [] };
  }
  const products = body?.products;
  if (!Array.isArray(products)) {
    return { result: { status: 400, error: 'expected a JSON body of the form {"products": [...]}' }, transfer: [] };
  }
  const summary = { received: products.length, imported: 0, rejected: 0, units: 0, valueCents: 0 };
  const skus = [];
  const texts = [];
  for (const product of products) {
    if (problemWith(product)) {
      summary.rejected++;
      continue;
    }
    skus.push(JSON.stringify(product.sku));
    texts.push(JSON.stringify(product));
    summary.imported++;
    summary.units += product.stock;
    summary.valueCents += product.priceCents * product.stock;
  }
  const text = movable(Buffer.from(texts.join('')));
  const ends = new Uint32Array(texts.length);
  let end = 0;
  texts.forEach((t, i) => (ends[i] = end += Buffer.byteLength(t)));
  return { result: { status: 200, summary, skus: skus.join('\n'), text, ends }, transfer: [text.buffer, ends.buffer] };
}

/**
 * `bytes` in memory of their own, ready to be moved to another thread: the
 * same Buffer when it owns its whole ArrayBuffer, else a copy of just its
 * bytes. A small Buffer (under half of Buffer.poolSize: 4 KiB, or 32 KiB from
 * Node 24.18) is a slice of a pool that other Buffers share; Node marks that
 * pool untransferable, and from Node 21 postMessage throws a DataCloneError
 * when it is in the transfer list.
 */
function movable(bytes) {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const copy = Buffer.allocUnsafeSlow(bytes.byteLength); // never from the pool
  bytes.copy(copy);
  return copy;
}

function serve() {
  const express = require('express');
  const HOST = process.env.HOST || '127.0.0.1';
  const PORT = Number(process.env.PORT ?? 3000);

  const catalogue = new Map(); // sku → the product's JSON text, a view into its import's bytes
  const importer = workerPool(Math.max(1, Math.min(4, availableParallelism() - 1)));
  let inFlight = 0;
  const app = express();

  /** Refuses an import past the queue's bound, before its body is read. */
  function admit(req, res, next) {
    if (inFlight >= MAX_IMPORTS_IN_FLIGHT) {
      res.set('retry-after', '5').status(503).json({ error: `${inFlight} imports are in progress; send this one again later` });
      return;
    }
    inFlight++;
    res.once('close', () => inFlight--);
    next();
  }

  // express.raw only collects the bytes (and enforces the limit): no parsing here.
  app.post('/import', admit, express.raw({ type: 'application/json', limit: MAX_IMPORT }), async (req, res) => {
    if (!Buffer.isBuffer(req.body)) {
      return res.status(400).json({ error: 'expected a JSON body of the form {"products": [...]}' });
    }
    const result = await importer.run(req.body);
    if (result.status !== 200) return res.status(result.status).json({ error: result.error });
    // Stored before answering: once the client has its summary, every
    // product it imported can be read.
    await store(result);
    res.json(result.summary);
  });

  app.get('/products/:sku', (req, res) => {
    const product = catalogue.get(req.params.sku);
    if (!product) return res.status(404).json({ error: `no product ${req.params.sku}` });
    res.type('json').send(product);
  });

  /**
   * Unlike the parse, storing can be split up: 1 000 products at a time,
   * with a turn of the event loop between batches, so that requests that
   * arrived meanwhile are answered in between. Each product is a view into
   * the bytes the worker sent (subarray copies nothing): a small object for
   * the garbage collector instead of a string. A view keeps its whole
   * import's bytes alive until every product in it has been replaced.
   * The skus come one a line, as JSON text: a sku may contain a newline,
   * its JSON text cannot.
   */
  async function store({ skus, text, ends }) {
    const products = Buffer.from(text.buffer, text.byteOffset, text.byteLength);
    let line = 0;
    for (let i = 0; i < ends.length; i++) {
      const lineEnd = skus.indexOf('\n', line);
      const sku = JSON.parse(skus.slice(line, lineEnd === -1 ? skus.length : lineEnd));
      catalogue.set(sku, products.subarray(i === 0 ? 0 : ends[i - 1], ends[i]));
      line = lineEnd + 1;
      if ((i + 1) % STORE_BATCH === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  app.get('/health', (req, res) => {
    res.json({ status: 'ok' });
  });

  // The body parser's errors (a body over MAX_IMPORT) and a failed worker, as JSON.
  app.use((err, req, res, next) => {
    const status = err.status || 500;
    if (status >= 500) console.error(err);
    const error = status === 413 ? `the import is larger than ${MAX_IMPORT}` : status < 500 ? err.message : 'internal error';
    res.status(status).json({ error });
  });

  const server = app.listen(PORT, HOST, (err) => {
    if (err) throw err; // e.g. EADDRINUSE: another app is on this port
    const { port } = server.address();
    console.log(`Listening on http://${HOST}:${port}`);
  });
  server.on('close', () => importer.close());
}

/**
 * `size` long-lived workers running this file. run(bytes) sends an import
 * to the least busy one and resolves with its answer; a worker that dies
 * fails its imports (a 500) and is replaced.
 */
function workerPool(size) {
  const workers = [];
  let nextId = 1;
  const start = () => {
    const worker = new Worker(__filename);
    worker.pending = new Map(); // id → { resolve, reject }
    worker.on('message', ({ id, ...result }) => {
      worker.pending.get(id).resolve(result);
      worker.pending.delete(id);
    });
    // A worker that fails is replaced at once, before another import can be
    // sent to it (its 'exit' comes later), and the imports it held fail.
    const retire = (err) => {
      const at = workers.indexOf(worker);
      if (at !== -1) workers[at] = start();
      for (const { reject } of worker.pending.values()) reject(err);
      worker.pending.clear();
    };
    worker.on('error', retire);
    worker.on('exit', (code) => retire(new Error(`an import worker stopped (exit code ${code})`)));
    return worker;
  };
  for (let i = 0; i < size; i++) workers.push(start());
  return {
    run(bytes) {
      const worker = workers.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        worker.pending.set(id, { resolve, reject });
        // The body's memory is handed over, not copied (it is unusable here
        // afterwards); a small body, a slice of Node's shared pool, is
        // copied first (movable).
        const body = movable(bytes);
        worker.postMessage({ id, bytes: body }, [body.buffer]);
      });
    },
    close() {
      for (const worker of workers.splice(0)) worker.terminate();
    },
  };
}
