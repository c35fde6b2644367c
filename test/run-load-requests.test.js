'use strict';
// runLoad's path function may return a whole request ({ path, method,
// headers, body }) instead of a path: a load of POSTs, each with its own
// body (lab 15's batches), as `workbook load`, `profile` and the checks
// send them. A server in this process records what arrives.

const http = require('node:http');
const { once } = require('node:events');
const { runLoad } = require('../scripts/harness/run-load');

test('each request of the load is the one the function gives, body and all', async () => {
  const seen = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, type: req.headers['content-type'], length: Number(req.headers['content-length']), body });
      res.end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const url = `http://127.0.0.1:${server.address().port}`;
    const request = (i) => ({ method: 'POST', path: `/readings?n=${i}`, headers: { 'content-type': 'text/csv' }, body: `sensor,value\nb1-f00-r01,${i}\n`.repeat(1 + (i % 3)) });
    const load = await runLoad({ url, path: request, connections: 2, amount: 30 });
    expect(load.responses).toBe(30);
    expect(seen).toHaveLength(30);
    for (const r of seen) {
      const i = Number(new URL(r.url, url).searchParams.get('n'));
      expect(r).toEqual({ method: 'POST', url: `/readings?n=${i}`, type: 'text/csv', length: Buffer.byteLength(request(i).body), body: request(i).body });
    }
    // Every request a new one: no body was sent twice.
    expect(new Set(seen.map((r) => r.url)).size).toBe(30);
  } finally {
    server.close();
  }
});
