'use strict';
// The check's clients: each downloads one export on its own connection and
// keeps only what judging it needs (status, headers, length, SHA-256, the
// first and last bytes), never the whole body, so the check's own memory
// stays small whatever the app sends.
//
// A "slow" client reads the response headers and then nothing more until it
// is released: the app's writes fill the client's receive window and the
// kernel's send buffer (about 4 MB on Linux's loopback, none of it in the
// app's memory), and then write() returns false. An app that waits for
// 'drain' stops there; one that carries on piles the rest of the export up
// in its own memory.

const http = require('node:http');
const crypto = require('node:crypto');

const KEEP = 240; // bytes kept from each end of a body

/**
 * Starts one download.
 * @param {string} url
 * @param {{slow?: boolean, timeoutMs?: number}} [options]
 * @returns {{done: Promise<object>, release: () => void, finished: boolean, headersAt: Promise<void>}}
 */
function download(url, { slow = false, timeoutMs = 30_000 } = {}) {
  let release;
  const released = slow ? new Promise((resolve) => (release = resolve)) : Promise.resolve();
  if (!slow) release = () => {};
  let answered;
  const headersAt = new Promise((resolve) => (answered = resolve));
  const handle = { release: () => release(), finished: false, headersAt, bytes: 0 };
  const started = process.hrtime.bigint();
  handle.done = new Promise((resolveOnce) => {
    let settled = false;
    const resolve = (value) => {
      if (settled) return;
      settled = true;
      handle.finished = true;
      answered();
      resolveOnce(value);
    };
    const fail = (err) => resolve({ error: err.message, bytes: handle.bytes });
    const req = http.get(url, { agent: false }, (res) => {
      answered();
      if (slow) res.pause();
      const hash = crypto.createHash('sha256');
      let head = Buffer.alloc(0);
      let tail = Buffer.alloc(0);
      res.on('data', (chunk) => {
        hash.update(chunk);
        handle.bytes += chunk.length;
        if (head.length < KEEP) head = Buffer.concat([head, chunk.subarray(0, KEEP - head.length)]);
        tail = Buffer.concat([tail, chunk]).subarray(-KEEP);
      });
      const cut = new Error(`the app closed the connection after ${handle.bytes.toLocaleString('en-US')} bytes, before the export was complete`);
      res.on('error', () => fail(cut));
      res.on('close', () => fail(cut)); // after 'end', this does nothing
      res.on('end', () => {
        resolve({
          status: res.statusCode,
          contentType: res.headers['content-type'] || '',
          length: handle.bytes,
          sha256: hash.digest('hex'),
          head: head.toString('utf8'),
          tail: tail.toString('utf8'),
          complete: res.complete,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        });
      });
      released.then(() => res.resume());
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`the export was not complete within ${timeoutMs / 1000} s`)));
    req.on('error', fail);
  });
  return handle;
}

/** What is wrong with a downloaded export, or null when it is `want` exactly. */
function exportProblem(got, want, format) {
  if (got.error) return got.error;
  if (got.status !== 200) return `status ${got.status}: ${got.head.slice(0, 100)}`;
  const type = format === 'json' ? 'application/json' : 'text/csv';
  if (!got.contentType.startsWith(type)) return `Content-Type "${got.contentType}" instead of ${type}`;
  if (got.sha256 === want.sha256 && got.length === want.length) return null;
  if (got.length < want.length && want.head === got.head) return `${got.length.toLocaleString('en-US')} bytes of ${want.length.toLocaleString('en-US')}: the export stops early, ending "…${got.tail.slice(-60)}"`;
  if (got.length !== want.length) return `${got.length.toLocaleString('en-US')} bytes instead of ${want.length.toLocaleString('en-US')}`;
  if (got.head !== want.head) return `begins "${got.head.slice(0, 80)}…" instead of "${want.head.slice(0, 80)}…"`;
  if (got.tail !== want.tail) return `ends "…${got.tail.slice(-80)}" instead of "…${want.tail.slice(-80)}"`;
  return 'the same length, but different bytes in the middle';
}

module.exports = { download, exportProblem };
