'use strict';
// The calls a check counts (call-counter.js): lab 05 counts the quotes its
// cache answers without calling the pricing model. Each would fail without
// its mechanism: the export replaced when the module is compiled, the
// counter installed in every thread and process of the app, and the
// census adding them up.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { countCalls, parseSpec, wrapExport } = require('../scripts/harness/call-counter');
const { startApp } = require('../scripts/harness/app-process');
const { get } = require('../scripts/harness/http-client');
const { killAll } = require('../scripts/harness/children');

afterAll(() => killAll());

describe('the counter', () => {
  test('a declaration is "file#name", nothing else', () => {
    expect(parseSpec('pricing.js#priceQuote')).toEqual({ file: 'pricing.js', name: 'priceQuote' });
    expect(parseSpec('lib/pricing.js#priceQuote')).toBeNull(); // a file name, not a path
    expect(parseSpec('pricing.js')).toBeNull();
    expect(parseSpec('')).toBeNull();
  });

  test('counts the calls to the declared export of a module of that name, once compiled, and passes `this` and the arguments on', () => {
    // A stand-in for Module.prototype: its _compile runs a module's code.
    const loader = {
      _compile(exports) {
        this.exports = exports;
      },
    };
    const counter = countCalls('pricing.js#price', { target: loader });
    const pricing = {
      price(a, b) {
        return [this === pricing, a + b];
      },
    };
    const other = { price: () => 0 };
    loader._compile.call({ filename: path.join('some', 'lab', 'pricing.js') }, pricing);
    loader._compile.call({ filename: path.join('some', 'lab', 'other.js') }, other);
    const { price } = pricing; // destructured after loading, as an app does
    expect(pricing.price(1, 2)).toEqual([true, 3]);
    expect(price.call(pricing, 3, 4)).toEqual([true, 7]);
    other.price();
    expect(counter.count()).toBe(2);
    // The same name and arity as the original: nothing an app would read differs.
    expect(price.name).toBe('price');
    expect(price.length).toBe(2);
  });

  test('a frozen exports object is left alone; a function is wrapped once', () => {
    const counter = { calls: 0, wrapped: new WeakSet() };
    const frozen = Object.freeze({ price: () => 1 });
    expect(wrapExport(frozen, 'price', counter)).toBe(false);
    const open = { price: () => 1 };
    expect(wrapExport(open, 'price', counter)).toBe(true);
    expect(wrapExport(open, 'price', counter)).toBe(false);
    open.price();
    expect(counter.calls).toBe(1);
  });
});

// An app that calls model.js#work on its main thread, in a worker thread and
// in a child process: every call counts, wherever it runs.
const APP = `
const http = require('node:http');
const path = require('node:path');
const { fork } = require('node:child_process');
const { Worker } = require('node:worker_threads');
const { work } = require('./model.js');
if (process.argv[2] === 'child') {
  process.on('message', (n) => { for (let i = 0; i < n; i++) work(i); process.send('done'); });
} else {
  const child = fork(__filename, ['child']);
  const worker = new Worker("const { work } = require(" + JSON.stringify(path.join(__dirname, 'model.js')) + "); const { parentPort } = require('node:worker_threads'); parentPort.on('message', (n) => { for (let i = 0; i < n; i++) work(i); parentPort.postMessage('done'); });", { eval: true });
  const server = http.createServer((req, res) => {
    const { name, length } = work;
    for (let i = 0; i < 3; i++) work(i);
    worker.postMessage(4);
    worker.once('message', () => {
      child.send(5);
      child.once('message', () => res.end(JSON.stringify({ name, length })));
    });
  });
  server.listen(Number(process.env.PORT), '127.0.0.1');
  process.on('SIGTERM', () => { child.kill(); worker.terminate(); server.close(); });
}
`;

test('an app\'s calls are counted in every thread and process, through the census', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-calls-'));
  try {
    fs.writeFileSync(path.join(dir, 'model.js'), 'exports.work = function work(n) { return n * 2; };\n');
    const file = path.join(dir, 'app.js');
    fs.writeFileSync(file, APP);
    const app = await startApp(file, { countCalls: 'model.js#work' });
    try {
      expect(await app.calls()).toBe(0);
      const res = await get(`${app.url}/`);
      expect(JSON.parse(res.body)).toEqual({ name: 'work', length: 1 });
      expect(await app.calls()).toBe(3 + 4 + 5);
      await get(`${app.url}/`);
      expect(await app.calls()).toBe(24);
    } finally {
      await app.stop();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);
