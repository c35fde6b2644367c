'use strict';
// One plain HTTP GET on a fresh connection, timed. Used for the checks'
// response cases and for probing a second endpoint while load runs.

const http = require('node:http');

/**
 * @returns {Promise<{status:number, headers:object, body:string, ms:number}>}
 *   rejects on a connection error or after `timeoutMs`.
 */
function get(url, { timeoutMs = 10_000, signal } = {}) {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, signal }, (res) => {
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
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

/** Parses a JSON body, or returns undefined when it is not JSON. */
function json(response) {
  try {
    return JSON.parse(response.body);
  } catch {
    return undefined;
  }
}

module.exports = { get, json };
