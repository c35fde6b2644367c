'use strict';
// The contract of POST /readings, as the walkthrough's "The API" states it,
// checked on batches the app has never seen: the shapes a gateway sends
// (columns in any order, an extra column, untidy lines, many rejects, a
// batch of one reading, a header alone) and the errors (no header, a
// header without a required column, a body that is not CSV).

const { request, json } = require('../../../scripts/harness/http-client');
const { isDeepStrictEqual } = require('node:util');
const { truncate } = require('../../../scripts/checks/gates');
const { makeBatch } = require('./batches');

const CSV = { 'content-type': 'text/csv' };

/** POSTs a batch's text. */
const post = (app, text, headers = CSV) => request(`${app.url}/readings`, { method: 'POST', body: text, headers, timeoutMs: 30_000 }).catch((err) => err);

/**
 * What is wrong with an answer to a batch (null when it is right): the
 * status, the content type, and the summary field by field, the first
 * difference named.
 */
function summaryProblem(res, expected) {
  if (res instanceof Error) return res.message;
  if (res.status !== 200) return `status ${res.status}: ${truncate(res.body || '', 80)}`;
  const body = json(res);
  if (body === undefined) return `not JSON: ${truncate(res.body || '', 60)}`;
  if (isDeepStrictEqual(body, expected)) return null;
  for (const key of ['accepted', 'rejected', 'rejectedLines']) {
    if (!isDeepStrictEqual(body[key], expected[key])) return `${key} ${JSON.stringify(body[key])} instead of ${JSON.stringify(expected[key])}`;
  }
  const got = Array.isArray(body.series) ? body.series : [];
  if (got.length !== expected.series.length) return `${got.length} series instead of ${expected.series.length}`;
  for (let i = 0; i < got.length; i++) {
    if (!isDeepStrictEqual(got[i], expected.series[i])) {
      return `series ${i + 1} is ${truncate(JSON.stringify(got[i]), 120)} instead of ${truncate(JSON.stringify(expected.series[i]), 120)}`;
    }
  }
  return 'a different body (extra fields?)';
}

/** A response case for one batch. */
function batchCase(name, res, batch) {
  const problem = summaryProblem(res, batch.expected);
  return {
    name,
    pass: problem === null,
    expected: `200, accepted ${batch.expected.accepted}, rejected ${batch.expected.rejected}, ${batch.expected.series.length} series`,
    actual: problem || 'the same summary',
  };
}

/** An error case: the status, and a JSON body with an `error` sentence. */
function errorCase(name, res, status) {
  const body = res instanceof Error ? undefined : json(res);
  const pass = !(res instanceof Error) && res.status === status && body && typeof body.error === 'string';
  return {
    name,
    pass,
    expected: `status ${status} {"error": "…"}`,
    actual: res instanceof Error ? res.message : `status ${res.status} ${truncate(res.body || '', 80)}`,
  };
}

/** Every contract case, on `app`, with batches drawn from `rand`. */
async function contractCases(app, rand) {
  const responses = [];
  const shapes = [
    ['a batch with the columns in the usual order, tidy', { readings: 300, shuffle: false, untidy: false }],
    ['a batch with the columns in another order (and perhaps an extra one), untidy lines', { readings: 600 }],
    ['a batch where a third of the readings must be rejected', { readings: 400, rejectShare: 0.33 }],
    ['a batch of one reading', { readings: 1, rejectShare: 0 }],
    ['a header line and no readings', { readings: 0 }],
  ];
  for (const [name, shape] of shapes) {
    const batch = makeBatch(rand, shape);
    responses.push(batchCase(`POST /readings: ${name}`, await post(app, batch.text), batch));
  }
  responses.push(errorCase('POST /readings with an empty body', await post(app, '\n# nothing yet\n'), 400));
  responses.push(errorCase('POST /readings whose header has no value column', await post(app, 'sensor,metric,time\nb1-f00-r01,temp,2026-01-01T00:00:00Z\n'), 400));
  responses.push(errorCase('POST /readings with a JSON body', await post(app, '{"sensor":"b1-f00-r01"}', { 'content-type': 'application/json' }), 415));
  return responses;
}

module.exports = { contractCases, batchCase, summaryProblem, post, CSV };
