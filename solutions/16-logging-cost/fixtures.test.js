'use strict';
// Lab 16's check against fixtures: other real fixes must pass; "fixes" that
// drop lines, cut them, turn the level off, keep formatting at a level that
// is off, or keep the whole order in every line behind an unbounded buffer
// must fail. Each is the shipped starter or the reference solution with a
// few lines changed (derivedApp: a change to their base that breaks a patch
// fails loudly). The lab's own suite is labs/16-logging-cost/check/verdicts.test.js.
//
// The contract these fixtures hold the check to (the walkthrough's "The log
// contract"): one whole JSON line per request with its request id, method,
// url, status, time, level info and order (lines and total for one found);
// no line dropped, none cut; a level that is off costs nothing; while the
// collector is slow, nothing piles up in memory and the loop keeps answering.

const { findLab } = require('../../scripts/lib/labs');
const { materializeShipped } = require('../../scripts/lib/shipped');
const { describeFixtures } = require('../../test/helpers/lab-verdicts');
const { derivedApp } = require('../../test/helpers/derived-app');

const lab = findLab('16');
const wrongResponses = (result) => result.responses.filter((r) => !r.pass).map((r) => `${r.name}: ${r.actual}`).join('\n');
const failed = (result) => result.gates.filter((g) => !g.pass).map((g) => g.id);

const starter = () => {
  const shipped = materializeShipped(lab);
  if (shipped.error) throw new Error(shipped.error);
  return shipped.app;
};
// The derived apps live in .workbook/derived/: they find the database by the path the solution uses.
const DB = ["require('./orders-db')", "require('../../labs/16-logging-cost/orders-db')"];
const fromStarter = (name, patches) => derivedApp(`16-${name}`, starter(), [DB, ...patches]);
const fromSolution = (name, patches) => derivedApp(`16-${name}`, lab.solutionApp, patches);

// The starter's lines the fixtures change.
const STARTER_DEBUG = "  debug('order %s read from the database: %O', req.params.id, order);";
const STARTER_FIELDS = '  res.locals.fields = { orderId: order.id, lines: summary.lines, totalCents: summary.totalCents, order };';
const STARTER_ACCESS_EXTRAS = `      req: { headers: req.headers, params: req.params, query: req.query },
      res: { headers: res.getHeaders(), body: res.locals.body },
`;
// The reference's.
const DESTINATION = '  pino.destination({ dest: 1, sync: false }),';
const REF_DEBUG = "  logger.debug({ order }, 'order read from the database');";
const REF_INFO = '    logger.info(';

describe('lab 16 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      [
        'the starter\'s own logger kept (console.log of one JSON line), with the debug line behind a level test and only the contract\'s fields',
        fromStarter('console-compact', [
          [STARTER_DEBUG, "  if (LEVELS[LOG_LEVEL] <= LEVELS.debug) debug('order %s read from the database: %O', req.params.id, order);"],
          [STARTER_FIELDS, '  res.locals.fields = { orderId: order.id, lines: summary.lines, totalCents: summary.totalCents };'],
          [STARTER_ACCESS_EXTRAS, ''],
        ]),
      ],
      [
        'pino writing through a transport in a worker thread (pino/file to stdout)',
        fromSolution('pino-transport', [[DESTINATION, "  pino.transport({ target: 'pino/file', options: { destination: 1 } }),"]]),
      ],
      [
        'pino writing synchronously to stdout (pino\'s default destination)',
        fromSolution('pino-sync', [[DESTINATION, '  pino.destination({ dest: 1, sync: true }),']]),
      ],
    ],
    cheats: [
      [
        'the reference logging one request in ten (sampling that drops lines and counts nothing)',
        fromSolution('one-in-ten', [[REF_INFO, '    if (Math.random() < 0.1) logger.info(']]),
        (result) => expect(wrongResponses(result)).toMatch(/no line/),
      ],
      [
        'the starter\'s lines cut at 2000 characters',
        fromStarter('truncated', [['  console.log(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }));', '  console.log(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }).slice(0, 2000));']]),
        (result) => expect(wrongResponses(result)).toMatch(/no line/),
      ],
      [
        'the reference at level warn (the access lines are never written)',
        fromSolution('level-warn', [["  { level: process.env.LOG_LEVEL || 'info' },", "  { level: process.env.LOG_LEVEL || 'warn' },"]]),
        (result) => expect(wrongResponses(result)).toMatch(/no line/),
      ],
      [
        'the reference with the order still formatted in full for a debug line that is off',
        fromSolution('eager-debug', [
          [REF_DEBUG, "  logger.debug(`order read from the database: ${require('node:util').inspect(order, { depth: null, maxArrayLength: null, breakLength: Infinity })}`);"],
        ]),
        (result) => expect(failed(result)).toContain('cpu-per-line'),
      ],
      [
        'the whole order in every access line, through pino and sonic-boom\'s unbounded asynchronous buffer',
        fromSolution('whole-order-async', [["  res.locals.fields = { orderId: order.id, lines: summary.lines, totalCents: summary.totalCents };", '  res.locals.fields = { orderId: order.id, lines: summary.lines, totalCents: summary.totalCents, order };']]),
        (result) => expect(failed(result)).toContain('backlog-memory'),
      ],
    ],
  });
});
