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
const fromStarter = (name, patches) => derivedApp(`08-${name}`, starter(), patches);
const fromSolution = (name, patches) => derivedApp(`08-${name}`, lab.solutionApp, patches);

describe('lab 08 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      ['a streaming split of the body into products, parsed one by one between turns of the event loop', fixture('streaming-parse.js')],
      [
        'a worker that copies the body instead of taking it over',
        fromSolution('copy-body', [['        worker.postMessage({ id, bytes }, own ? [bytes.buffer] : []);', '        worker.postMessage({ id, bytes });']]),
      ],
    ],
    cheats: [
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
