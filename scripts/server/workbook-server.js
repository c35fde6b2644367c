'use strict';
// The local workbook server behind `npm start`: the built site, plus a small
// API for its "Check my fix" panel. It binds 127.0.0.1 only, answers only
// requests addressed to itself (Host and Origin checked, against DNS
// rebinding), knows only the labs in scripts/lib/labs.js, and can do exactly
// one thing: run a lab's check on the learner's own app.
//
// API
//   GET  /api/labs                    the labs, with the learner's progress
//   POST /api/labs/:lab/check         queue a check; 202 {job}
//   GET  /api/jobs/:id/events         the job's events as Server-Sent Events:
//        queued {position} · started · progress {text, elapsedMs} ·
//        result {result} · error {message}

const http = require('node:http');
const { findLab, labs } = require('../lib/labs');
const { stateOf } = require('../lib/progress');
const { CheckQueue } = require('./check-queue');
const { serveStatic } = require('./static-files');

/**
 * @param {object} options
 * @param {string|string[]|null} options.siteDir the built site's folder, or
 *   folders served in order (site/build, then site/static), or null for the API alone
 */
function createWorkbookServer({ siteDir, queue = new CheckQueue() }) {
  let allowedHosts = new Set();

  const server = http.createServer((req, res) => {
    if (!allowedHosts.has(String(req.headers.host || '').toLowerCase())) {
      return sendJson(res, 403, { error: 'This server only answers requests addressed to 127.0.0.1 or localhost.' });
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedHosts.has(origin.replace(/^http:\/\//, '').toLowerCase())) {
      return sendJson(res, 403, { error: 'Requests from other sites are refused.' });
    }
    const url = new URL(req.url, 'http://local');
    if (url.pathname.startsWith('/api/')) return api(req, res, url);
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { error: 'Method not allowed.' });
    if (!siteDir) return sendJson(res, 404, { error: 'The site is not built.' });
    return serveStatic(siteDir, req, res);
  });

  function api(req, res, url) {
    let m;
    if (req.method === 'GET' && url.pathname === '/api/labs') {
      return sendJson(res, 200, {
        labs: labs.map((lab) => {
          const { state, entry } = stateOf(lab);
          return { id: lab.id, slug: lab.slug, title: lab.title, minutes: lab.minutes, state, last: entry?.last ?? null, best: entry?.best ?? null };
        }),
        running: queue.running ? queue.running.lab : null,
        waiting: queue.waiting.length,
      });
    }
    if ((m = /^\/api\/labs\/([^/]+)\/check$/.exec(url.pathname))) {
      if (req.method !== 'POST') return sendJson(res, 405, { error: 'Use POST to start a check.' });
      const lab = findLab(decodeURIComponent(m[1]));
      if (!lab || decodeURIComponent(m[1]) !== lab.slug) return sendJson(res, 404, { error: `There is no lab "${m[1]}".` });
      const job = queue.enqueue(lab);
      return sendJson(res, 202, { job: { id: job.id, lab: lab.slug, state: job.state } });
    }
    if ((m = /^\/api\/jobs\/([0-9a-f-]{36})\/events$/.exec(url.pathname)) && req.method === 'GET') {
      const job = queue.jobs.get(m[1]);
      if (!job) return sendJson(res, 404, { error: 'No such check (the server may have restarted).' });
      return streamEvents(req, res, job);
    }
    return sendJson(res, 404, { error: 'No such API.' });
  }

  function streamEvents(req, res, job) {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (event) => {
      res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      if (event.type === 'result' || event.type === 'error') res.end();
    };
    for (const event of job.events) send(event);
    if (job.state === 'done' || job.state === 'failed') return;
    job.emitter.on('event', send);
    const keepAlive = setInterval(() => res.write(': still here\n\n'), 15_000);
    req.on('close', () => {
      job.emitter.off('event', send);
      clearInterval(keepAlive);
    });
  }

  return {
    server,
    queue,
    /** Listens on 127.0.0.1:port (0 = any free port); resolves to the URL. */
    listen(port) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          const actual = server.address().port;
          allowedHosts = new Set([`127.0.0.1:${actual}`, `localhost:${actual}`]);
          resolve(`http://127.0.0.1:${actual}`);
        });
      });
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function sendJson(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

module.exports = { createWorkbookServer };
