'use strict';
// The check's clients: each downloads one export on its own connection and
// keeps only what judging it needs (status, headers, length, SHA-256, the
// first and last bytes), never the whole body, so the check's own memory
// stays small whatever the app sends.
//
// A "slow" client takes the first 16 KiB of the body (an export cannot send
// that much without its first orders from the database) and then reads
// nothing more until it is released or abandons the download: the app's writes
// fill the client's receive window and the kernel's send buffer (the
// kernel's share, measured by socket-buffers.js: about 4 MB on Linux's
// loopback, none of it in the app's memory), and then write() returns
// false. An app that waits for 'drain' stops there; one that carries on
// piles the rest of the export up in its own memory.

const http = require('node:http');
const crypto = require('node:crypto');

const KEEP = 240; // bytes kept from each end of a body

/**
 * Starts one download.
 * @param {string} url
 * @param {{slow?: boolean, timeoutMs?: number, begunBytes?: number}} [options] begunBytes: what shows
 *   that an export has begun, more than a CSV header or a "[" (16 KiB by default)
 * @returns {{done: Promise<object>, release: () => void, abandon: () => void, finished: boolean,
 *   headersAt: Promise<void>, firstBytes: Promise<void>, bytes: number, started: boolean}}
 *   `firstBytes` resolves once the body's first 16 KiB are in (`started`), or when the download ends
 */
function download(url, { slow = false, timeoutMs = 30_000, begunBytes = 16 * 1024 } = {}) {
  let release = () => {};
  const released = slow ? new Promise((resolve) => (release = resolve)) : Promise.resolve();
  let answered;
  const headersAt = new Promise((resolve) => (answered = resolve));
  let begun;
  const firstBytes = new Promise((resolve) => (begun = resolve));
  const handle = { release: () => release(), abandon: () => {}, finished: false, abandoned: false, started: false, headersAt, firstBytes, bytes: 0 };
  const started = process.hrtime.bigint();
  handle.done = new Promise((resolveOnce) => {
    let settled = false;
    const resolve = (value) => {
      if (settled) return;
      settled = true;
      handle.finished = true;
      answered();
      begun();
      resolveOnce(value);
    };
    const fail = (err) => resolve({ error: handle.abandoned ? 'abandoned by the check' : err.message, bytes: handle.bytes });
    const req = http.get(url, { agent: false }, (res) => {
      answered();
      const hash = crypto.createHash('sha256');
      let head = Buffer.alloc(0);
      let tail = Buffer.alloc(0);
      res.on('data', (chunk) => {
        hash.update(chunk);
        handle.bytes += chunk.length;
        if (head.length < KEEP) head = Buffer.concat([head, chunk.subarray(0, KEEP - head.length)]);
        tail = Buffer.concat([tail, chunk]).subarray(-KEEP);
        if (!handle.started && handle.bytes >= begunBytes) {
          handle.started = true;
          begun();
          // A slow client has what it needs to know the export began: it reads no more.
          if (slow) {
            res.pause();
            released.then(() => res.resume());
          }
        }
      });
      const cut = new Error(`the app closed the connection after ${handle.bytes.toLocaleString('en-US')} bytes, before the export was complete`);
      res.on('error', () => fail(cut));
      res.on('close', () => fail(cut)); // after 'end', this does nothing
      res.on('end', () => {
        resolve({
          status: res.statusCode,
          contentType: res.headers['content-type'] || '',
          disposition: res.headers['content-disposition'] || '',
          length: handle.bytes,
          sha256: hash.digest('hex'),
          head: head.toString('utf8'),
          tail: tail.toString('utf8'),
          complete: res.complete,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        });
      });
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`the export was not complete within ${timeoutMs / 1000} s`)));
    req.on('error', fail);
    handle.abandon = () => {
      handle.abandoned = true;
      req.destroy();
    };
  });
  return handle;
}

/** The file name a Content-Disposition header gives, or null (`attachment; filename="x"` or unquoted). */
function attachmentName(header) {
  const match = /^\s*attachment\s*;(?:.*;)?\s*filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(header || '');
  return match ? (match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2]) : null;
}

/** What is wrong with a downloaded export, or null when it is `want` exactly. */
function exportProblem(got, want, { format, fileName }) {
  if (got.error) return got.error;
  if (got.status !== 200) return `status ${got.status}: ${got.head.slice(0, 100)}`;
  const type = format === 'json' ? 'application/json' : 'text/csv';
  if (!got.contentType.startsWith(type)) return `Content-Type "${got.contentType}" instead of ${type}`;
  const name = attachmentName(got.disposition);
  if (name !== fileName) return got.disposition ? `Content-Disposition "${got.disposition}" instead of attachment; filename="${fileName}"` : `no Content-Disposition: the download must be named ${fileName}`;
  if (got.sha256 === want.sha256 && got.length === want.length) return null;
  if (got.length < want.length && want.head === got.head) return `${got.length.toLocaleString('en-US')} bytes of ${want.length.toLocaleString('en-US')}: the export stops early, ending "…${got.tail.slice(-60)}"`;
  if (got.length !== want.length) return `${got.length.toLocaleString('en-US')} bytes instead of ${want.length.toLocaleString('en-US')}`;
  if (got.head !== want.head) return `begins "${got.head.slice(0, 80)}…" instead of "${want.head.slice(0, 80)}…"`;
  if (got.tail !== want.tail) return `ends "…${got.tail.slice(-80)}" instead of "…${want.tail.slice(-80)}"`;
  return 'the same length, but different bytes in the middle';
}

module.exports = { download, exportProblem, attachmentName };
