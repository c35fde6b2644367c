'use strict';
// Lab 08's check against fixtures: other real fixes must pass; "fixes" that
// skip the work, refuse it, answer before it is done, keep parsing on the
// main thread in another shape, make another route wait for the imports, or
// hand the requests to other processes must fail. Most are the shipped
// starter or the reference solution with a few lines changed (derivedApp: a
// change to their base that breaks a patch fails loudly). The lab's own
// suite is labs/08-large-json-body/check/verdicts.test.js.

const path = require('node:path');
const { findLab } = require('../../scripts/lib/labs');
const { materializeShipped } = require('../../scripts/lib/shipped');
const { describeFixtures } = require('../../test/helpers/lab-verdicts');
const { derivedApp } = require('../../test/helpers/derived-app');

const lab = findLab('08');
const fixture = (name) => path.join(__dirname, 'fixtures', name);
const wrongResponses = (result) => result.responses.filter((r) => !r.pass).map((r) => `${r.name}: ${r.actual}`).join('\n');
const failedGates = (result) => result.gates.filter((g) => !g.pass).map((g) => g.id);

const starter = () => {
  const shipped = materializeShipped(lab);
  if (shipped.error) throw new Error(shipped.error);
  return shipped.app;
};
// The lines of the starter and of the solution the fixtures change.
const STARTER_IMPORT = "app.post('/import', express.json({ limit: MAX_IMPORT }), (req, res) => {\n  const products = req.body?.products;";
const STARTER_LOOP = `  for (const product of products) {
    if (problemWith(product)) {
      summary.rejected++;
      continue;
    }
    catalogue.set(product.sku, product);
    summary.imported++;
    summary.units += product.stock;
    summary.valueCents += product.priceCents * product.stock;
  }
  res.json(summary);`;
const SOLUTION_STORE = '    await store(result);\n    res.json(result.summary);';
const SOLUTION_ANSWER = "  const text = movable(Buffer.from(texts.join('')));";
const fromStarter = (name, patches) => derivedApp(`08-${name}`, starter(), patches);
const fromSolution = (name, patches) => derivedApp(`08-${name}`, lab.solutionApp, patches);

// The reference as it was until issue 22: the worker always moves its
// answer's ArrayBuffer. A small answer is a slice of Node's shared Buffer pool,
// which Node marks untransferable: Node 20 copies it quietly, Node 21 and
// later throw a DataCloneError in the worker, which dies, and the import is
// a 500. Wrong on every Node a learner runs (22-26), right on Node 20.
const throwsOnPooledTransfer = Number(process.versions.node.split('.')[0]) >= 21;
const alwaysMoves = () => fromSolution('always-moves-answer', [[SOLUTION_ANSWER, "  const text = Buffer.from(texts.join(''));"]]);
// A fix that copies answers under 4 KiB (Node 22's pool threshold) and
// moves the rest: from Node 24.18 the pool is 64 KiB and serves Buffers up
// to 32 KiB, so the check's 140-product import (about 30 KB) still throws.
const poolThresholdMoreThan4KiB = Buffer.poolSize >>> 1 > 4096;
const copiesUnder4KiB = () =>
  fromSolution('copies-under-4kib', [[SOLUTION_ANSWER, "  const joined = Buffer.from(texts.join(''));\n  const text = joined.length < 4096 ? movable(joined) : joined;"]]);

describe('lab 08 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      ['a streaming split of the body into products, parsed one by one between turns of the event loop', fixture('streaming-parse.js')],
      [
        'a worker that copies the body instead of taking it over',
        fromSolution('copy-body', [['        worker.postMessage({ id, bytes: body }, [body.buffer]);', '        worker.postMessage({ id, bytes });']]),
      ],
      ...(throwsOnPooledTransfer ? [] : [['the reference before issue 22, which moves every answer (right on Node 20 only: it copies a pooled Buffer in a transfer list)', alwaysMoves()]]),
      ...(poolThresholdMoreThan4KiB ? [] : [['answers under 4 KiB copied, the rest moved (right where the Buffer pool is 8 KiB: Node 22, and 24 before 24.18)', copiesUnder4KiB()]]),
    ],
    cheats: [
      ...(throwsOnPooledTransfer
        ? [
            [
              'the reference before issue 22, which moves every answer, a small one a slice of the Buffer pool (Node 21 and later throw)',
              alwaysMoves(),
              (result) => expect(wrongResponses(result)).toMatch(/one product.*status 500/),
            ],
          ]
        : []),
      ...(poolThresholdMoreThan4KiB
        ? [
            [
              'answers under 4 KiB copied, the rest moved: a 30 KB answer is still pooled from Node 24.18',
              copiesUnder4KiB(),
              (result) => {
                expect(wrongResponses(result)).toMatch(/140 products.*status 500/);
                expect(wrongResponses(result)).not.toMatch(/one product/);
              },
            ],
          ]
        : []),
      [
        'summaries estimated from the body size, without parsing',
        fromStarter('fake-counts', [
          [STARTER_IMPORT, "app.post('/import', express.raw({ type: 'application/json', limit: MAX_IMPORT }), (req, res) => {\n  const count = Math.round(req.body.length / 216);\n  const products = Array.from({ length: count }, () => null);"],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/imported \d+ instead of \d+/),
      ],
      [
        'answering before the products are stored',
        fromSolution('stores-later', [[SOLUTION_STORE, '    setTimeout(() => store(result), 1000);\n    res.json(result.summary);']]),
        (result) => expect(wrongResponses(result)).toMatch(/a product that import imported/),
      ],
      [
        'a limit of 1 MB, so that no big body is parsed',
        fromStarter('tight-limit', [["const MAX_IMPORT = '50mb';", "const MAX_IMPORT = '1mb';"]]),
        (result) => expect(wrongResponses(result)).toMatch(/status 413/),
      ],
      [
        'a limit of 10 MB, under the largest import the API accepts',
        fromSolution('limit-10mb', [["const MAX_IMPORT = '50mb';", "const MAX_IMPORT = '10mb';"]]),
        (result) => expect(wrongResponses(result)).toMatch(/status 413/),
      ],
      [
        'the starter behind node:cluster',
        fixture('cluster.js'),
        (result) => expect(wrongResponses(result)).toMatch(/went to other processes/),
      ],
      [
        'validation split into batches with setImmediate, JSON.parse still on the main thread',
        fromStarter('chunked-walk', [
          [STARTER_IMPORT, `${STARTER_IMPORT.replace('(req, res) =>', 'async (req, res) =>')}`],
          [STARTER_LOOP, STARTER_LOOP.replace('  for (const product of products) {', "  let n = 0;\n  for (const product of products) {\n    if (++n % 1000 === 0) await new Promise((resolve) => setImmediate(resolve));")],
        ]),
        (result) => {
          expect(result.responses.every((r) => r.pass)).toBe(true);
          expect(failedGates(result)).toContain('loop-stall');
        },
      ],
      [
        'a leaner parse on the main thread (the raw bytes straight into JSON.parse): faster, not off the loop',
        fromStarter('faster-parse', [
          [STARTER_IMPORT, "app.post('/import', express.raw({ type: 'application/json', limit: MAX_IMPORT }), (req, res) => {\n  let body;\n  try {\n    body = JSON.parse(req.body.toString('latin1'));\n  } catch (err) {\n    return res.status(400).json({ error: err.message });\n  }\n  const products = body?.products;"],
        ]),
        (result) => expect(failedGates(result)).toContain('loop-stall'),
      ],
      [
        'product reads that wait until no import is running',
        fromSolution('reads-wait-for-imports', [
          ['  app.get(\'/products/:sku\', (req, res) => {', "  app.get('/products/:sku', async (req, res) => {\n    while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));"],
        ]),
        (result) => {
          expect(failedGates(result)).toContain('routes-p50');
          expect(result.gates.find((g) => g.id === 'routes-p50').scale).toMatch(/\/products\//);
        },
      ],
      [
        'refusing every import while another one is in progress',
        fromSolution('one-at-a-time', [['const MAX_IMPORTS_IN_FLIGHT = 4;', 'const MAX_IMPORTS_IN_FLIGHT = 1;']]),
        (result) => expect(wrongResponses(result)).toMatch(/imports under load|during the load/),
      ],
    ],
  });
});
