'use strict';
// Lab 02's check against fixtures: other real fixes must pass, "fixes" that
// drop part of the work must fail. The lab's own suite, with its gates and
// measured margins, is test/02-express-vs-fastify.test.js.

const path = require('node:path');
const { findLab } = require('../../scripts/lib/labs');
const { describeFixtures, expectGates } = require('../../test/helpers/lab-verdicts');
const { derivedApp } = require('../../test/helpers/derived-app');

const lab = findLab('02');
const fixture = (name) => path.join(__dirname, 'fixtures', name);

describe('lab 02 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      [
        'Fastify without response schemas',
        derivedApp('02-fastify-no-schemas', lab.solutionApp, [
          ["  { schema: { response: { 200: { type: 'array', items: item }, 400: problem } } },\n", ''],
          ["app.get('/items/:id', { schema: { response: { 200: item, 404: problem } } }, async", "app.get('/items/:id', async"],
          ["  { schema: { response: { 200: { type: 'object', properties: { hello: { type: 'string' } } } } } },\n", ''],
        ]),
      ],
      ['plain node:http', fixture('node-http.js')],
    ],
    cheats: [
      [
        'serving from cluster workers (their CPU is not the app\'s, and their state is split)',
        fixture('cluster.js'),
        (result) => {
          // Caught either way: the workers do not share the state a write
          // changed (a later read answers from the other worker), or, when
          // every lone answer happened to come from one worker, the check
          // sees requests served outside the process it started.
          const names = result.responses.filter((r) => !r.pass).map((r) => r.name);
          expect(names.some((name) => name === "requests served by the app's own process" || /^(GET|PUT|PATCH|DELETE) \/(users|orders)/.test(name))).toBe(true);
        },
      ],
      [
        'a port that keeps only the measured routes',
        // Every resource but the catalogue gone: fast, and no longer the same API.
        derivedApp('02-measured-routes-only', lab.solutionApp, [['for (const name of RESOURCES) {', 'for (const name of []) {']]),
        (result) => {
          expectGates(result, { 'throughput-ratio': true });
          expect(result.responses.filter((r) => !r.pass).map((r) => r.name)).toContain('POST /orders');
        },
      ],
    ],
  });
});
