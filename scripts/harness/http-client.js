'use strict';
// One plain HTTP request on a fresh connection, timed. Used for the checks'
// response cases and for probing a second endpoint while load runs.

const http = require('node:http');

/**
 * @param {string} url
 * @param {object} [options]
 * @param {string} [options.method='GET']
 * @param {string|object} [options.body] an object is sent as JSON
 * @param {object} [options.headers]
 * @param {number} [options.timeoutMs=10000]
 * @param {AbortSignal} [options.signal]
 * @returns {Promise<{status:number, headers:object, body:string, ms:number}>}
 *   rejects on a connection error or after `timeoutMs`, with an Error of
 *   this module's realm (see asError).
 */
function request(url, { method = 'GET', body, headers = {}, timeoutMs = 10_000, signal } = {}) {
  const payload = body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body);
  const allHeaders = { ...headers };
  if (payload !== null) {
    allHeaders['content-type'] ??= 'application/json';
    allHeaders['content-length'] = Buffer.byteLength(payload);
  }
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: allHeaders, agent: false, signal }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        }),
      );
      res.on('error', (err) => reject(asError(err)));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err) => reject(asError(err)));
    req.end(payload ?? undefined);
  });
}

/**
 * The error as an Error of this realm. Node's own errors (a refused or
 * reset connection) are made in Node's realm; under Jest, which runs the
 * checks in a realm of their own, they are not `instanceof Error` there, and
 * a check that tells an answer from an error that way would read one as an
 * answer with no status and no time.
 */
function asError(err) {
  if (err instanceof Error) return err;
  return Object.assign(new Error(err && err.message ? err.message : String(err)), { code: err && err.code, name: (err && err.name) || 'Error', cause: err });
}

function get(url, options = {}) {
  return request(url, { ...options, method: 'GET' });
}

/** Parses a JSON body, or returns undefined when it is not JSON. */
function json(response) {
  try {
    return JSON.parse(response.body);
  } catch {
    return undefined;
  }
}

module.exports = { request, get, json, asError };
