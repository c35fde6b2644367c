'use strict';
// Lab 13's check against fixtures: other real fixes must pass; "fixes" that
// keep the loop, turn it into an error, a refusal or a restart, skip the
// orders it could not page through, or serve from another process, must
// fail. Each is the shipped starter or the reference solution with a few
// lines changed (derivedApp: a change to their base that breaks a patch
// fails loudly). The lab's own suite is labs/13-stuck-at-full-cpu/check/verdicts.test.js.
//
// The contract these fixtures hold the check to (the walkthrough's "The
// API"): every read ends, with every order once in (placedAt, id) order,
// in about the time an ordinary read of its size takes, whatever the data;
// /health answers all along; one process serves from start to end. A
// bound on the loop is good practice (the reference has one), but no input
// reaches it once the cursor moves forward, so the check cannot see it:
// a correct fix without one passes.

const { findLab } = require('../../scripts/lib/labs');
const { materializeShipped } = require('../../scripts/lib/shipped');
const { describeFixtures, expectGates } = require('../../test/helpers/lab-verdicts');
const { derivedApp } = require('../../test/helpers/derived-app');

const lab = findLab('13');
const wrongResponses = (result) => result.responses.filter((r) => !r.pass).map((r) => `${r.name}: ${r.actual}`).join('\n');

const starter = () => {
  const shipped = materializeShipped(lab);
  if (shipped.error) throw new Error(shipped.error);
  return shipped.app;
};
// The derived apps live in .workbook/derived/: they find the store by the path the solution uses.
const STORE = ["require('./orders-store')", "require('../../labs/13-stuck-at-full-cpu/orders-store')"];
const fromStarter = (name, patches) => derivedApp(`13-${name}`, starter(), [STORE, ...patches]);
const fromSolution = (name, patches) => derivedApp(`13-${name}`, lab.solutionApp, patches);

// The lines of the starter's readAll() the fixtures change.
const READ = '    const page = store.find({ startAt: cursor, before: filter.to, customer: filter.customer, limit: PAGE_SIZE });';
const ADVANCE = '    cursor = page[page.length - 1].placedAt;';
const LOOP = '  for (;;) {';
// The reference's bound.
const BOUND = `  // One page more than the whole table fills: a read that needs more is not moving.
  const maxPages = Math.ceil(store.size / PAGE_SIZE) + 1;
  let after = null;
  for (let pages = 1; pages <= maxPages; pages++) {`;

/**
 * The app (`base`, patched) served by one cluster worker, which the primary
 * replaces when it dies or when /health has not answered for 300 ms: a
 * supervisor, as a process manager would run it.
 */
function underSupervisor(name, base, patches = []) {
  return derivedApp(`13-${name}`, base, [
    ...patches,
    [
      "const express = require('express');",
      `const cluster = require('node:cluster');
const http = require('node:http');
if (cluster.isPrimary) {
  let worker = null;
  const fork = () => {
    worker = cluster.fork();
    worker.once('exit', () => setTimeout(fork, 10));
  };
  fork();
  // Every 100 ms, /health of the worker (through the shared port): no answer in 300 ms and it is replaced.
  let port = null;
  cluster.on('listening', (w, address) => (port = address.port));
  setInterval(() => {
    if (!port) return;
    const current = worker;
    const req = http.get({ host: '127.0.0.1', port, path: '/health', agent: false, timeout: 300 }, (res) => res.resume());
    req.on('timeout', () => {
      req.destroy();
      current.process.kill('SIGKILL');
    });
    req.on('error', () => {});
  }, 100);
  return;
}
const express = require('express');`,
    ],
  ]);
}

describe('lab 13 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      [
        'the starter kept as it is, but a page of one instant is followed by the rest of that instant (startAfter its last row)',
        fromStarter('after-a-full-instant', [
          ['  let cursor = filter.from;', '  let cursor = filter.from;\n  let after = null;'],
          [READ, '    const page = store.find({ ...(after ? { startAfter: after } : { startAt: cursor }), before: filter.to, customer: filter.customer, limit: PAGE_SIZE });'],
          [
            ADVANCE,
            `    const last = page[page.length - 1];
    // A page of one instant: go on after its last row, not from the instant again.
    if (page[0].placedAt === last.placedAt) after = { placedAt: last.placedAt, id: last.id };
    else (after = null), (cursor = last.placedAt);`,
          ],
        ]),
      ],
      [
        'the fixed cursor in an async read that yields to other requests between pages',
        fromSolution('async-pages', [
          ['function readAll(filter) {', 'async function readAll(filter) {'],
          ['    for (const order of page) orders.push(order);', '    for (const order of page) orders.push(order);\n    await new Promise((resolve) => setImmediate(resolve));'],
          ["app.get('/orders', (req, res) => {", "app.get('/orders', async (req, res) => {"],
          ['  const orders = readAll({ from, to });', '  const orders = await readAll({ from, to });'],
          ["app.get('/customers/:customer/orders', (req, res) => {", "app.get('/customers/:customer/orders', async (req, res) => {"],
          ['  const orders = readAll({ customer });', '  const orders = await readAll({ customer });'],
        ]),
      ],
      [
        'the fixed cursor with no bound on the pages (the check cannot see a bound no input reaches)',
        fromSolution('no-bound', [
          [BOUND, '  let after = null;\n  for (;;) {'],
          ["  throw new Error(`readAll read ${maxPages} pages, more than the table holds: its cursor is not advancing`);\n", ''],
        ]),
      ],
    ],
    cheats: [
      [
        'a bound alone: after as many pages as the table holds, the read fails with a 500',
        fromStarter('bound-only', [
          [LOOP, '  for (let pages = 0; ; pages++) {\n    if (pages > Math.ceil(store.size / PAGE_SIZE) + 1) throw new Error(\'too many pages\');'],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/status 500/),
      ],
      [
        'a page of one instant refused with a 422 ("too many orders at one instant")',
        fromStarter('refuse-full-instant', [
          [ADVANCE, `    if (page[0].placedAt === page[page.length - 1].placedAt) throw Object.assign(new Error('too many orders at one instant'), { status: 422, expose: true });\n${ADVANCE}`],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/status 422/),
      ],
      [
        'the cursor moved 1 ms past an instant that filled a page (the rest of that instant is skipped)',
        fromStarter('skip-a-millisecond', [[ADVANCE, `${ADVANCE}\n    if (page[0].placedAt === cursor) cursor += 1;`]]),
        (result) => expect(wrongResponses(result)).toMatch(/missing/),
      ],
      [
        'every page starting after the last page\'s instant (startAfter on the time alone)',
        fromStarter('after-the-instant', [[READ, "    const page = store.find({ ...(cursor === filter.from ? { startAt: cursor } : { startAfter: { placedAt: cursor, id: '\\uffff' } }), before: filter.to, customer: filter.customer, limit: PAGE_SIZE });"]]),
        (result) => expect(wrongResponses(result)).toMatch(/missing/),
      ],
      [
        "the largest page the store allows (1000): runs longer than a page still loop",
        fromStarter('bigger-page', [['const PAGE_SIZE = 500;', 'const PAGE_SIZE = 1000;']]),
        (result) => expectGates(result, { 'loop-ratio': false }),
      ],
      [
        'the same loop, awaiting setImmediate between pages: /health answers, the read never ends',
        fromStarter('async-loop', [
          ['function readAll(filter) {', 'async function readAll(filter) {'],
          [ADVANCE, `${ADVANCE}\n    await new Promise((resolve) => setImmediate(resolve));`],
          ["app.get('/orders', (req, res) => {", "app.get('/orders', async (req, res) => {"],
          ['  const orders = readAll({ from, to });', '  const orders = await readAll({ from, to });'],
          ["app.get('/customers/:customer/orders', (req, res) => {", "app.get('/customers/:customer/orders', async (req, res) => {"],
          ['  const orders = readAll({ customer });', '  const orders = await readAll({ customer });'],
        ]),
        (result) => expectGates(result, { 'loop-ratio': false }),
      ],
      [
        'the read under a vm timeout of 100 ms (it does interrupt the loop) that answers 503',
        fromStarter('vm-timeout', [
          ["const express = require('express');", "const vm = require('node:vm');\nconst express = require('express');"],
          [
            '  const orders = readAll({ from, to });',
            `  let orders;
  try {
    orders = vm.runInNewContext('readAll(filter)', { readAll, filter: { from, to } }, { timeout: 100 });
  } catch {
    return res.status(503).json({ error: 'the read took too long' });
  }`,
          ],
          [
            '  const orders = readAll({ customer });',
            `  let orders;
  try {
    orders = vm.runInNewContext('readAll(filter)', { readAll, filter: { customer } }, { timeout: 100 });
  } catch {
    return res.status(503).json({ error: 'the read took too long' });
  }`,
          ],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/status 503/),
      ],
      [
        'times made unique at import (each repeat of an instant moved 1 ms later)',
        fromStarter('unique-times', [
          ['  const imported = store.insert(orders);', '  for (const order of orders) {\n    while (usedTimes.has(order.placedAt)) order.placedAt++;\n    usedTimes.add(order.placedAt);\n  }\n  const imported = store.insert(orders);'],
          ['const store = new OrdersStore();', 'const store = new OrdersStore();\nconst usedTimes = new Set();'],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/reads|belongs/),
      ],
      [
        'a supervisor that restarts the starter when /health stops answering (the read that looped gets no answer, the orders are lost)',
        underSupervisor('supervised-starter', starter(), [STORE]),
        (result) => expect(result.verdict).toBe('fail'),
      ],
      [
        'the reference served by one cluster worker a supervisor would restart (another process serves)',
        underSupervisor('supervised-solution', lab.solutionApp),
        (result) => expect(wrongResponses(result)).toMatch(/another process/),
      ],
    ],
  });
});
