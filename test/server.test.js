'use strict';
const { labs: LABS } = require('../scripts/lib/labs');
// The local workbook server behind `npm start`: it answers only requests
// addressed to itself (against DNS rebinding and other sites' pages), knows
// only the workbook's labs, and runs one check at a time. The checks here
// are stand-ins (the real one runs in test/site.test.js), so these tests
// measure nothing and take a second.

const http = require('node:http');
const { createWorkbookServer } = require('../scripts/server/workbook-server');
const { CheckQueue } = require('../scripts/server/check-queue');

/** A request with full control of the Host and Origin headers. */
function raw(port, { method = 'GET', path = '/', host = `127.0.0.1:${port}`, origin } = {}) {
  return new Promise((resolve, reject) => {
    const headers = { host };
    if (origin) headers.origin = origin;
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Reads a job's Server-Sent Events until its result or error. */
async function events(port, id) {
  const { body } = await raw(port, { path: `/api/jobs/${id}/events` });
  return body
    .split('\n\n')
    .filter((block) => block.startsWith('event:'))
    .map((block) => JSON.parse(block.split('\n').find((l) => l.startsWith('data: ')).slice(6)));
}

let workbook;
let port;
const calls = [];
let release = [];

beforeAll(async () => {
  // A stand-in check that records its calls and finishes when told to.
  const check = (lab, { onProgress }) =>
    new Promise((resolve) => {
      calls.push({ lab: lab.slug, startedAt: Date.now() });
      onProgress({ text: `measuring ${lab.slug}`, elapsedMs: 1 });
      release.push(() => resolve({ lab: lab.slug, verdict: 'pass', gates: [], responses: [], info: [], noise: [], startedAt: new Date().toISOString() }));
    });
  workbook = createWorkbookServer({ siteDir: null, queue: new CheckQueue({ check, appFor: () => '/not/the/learners/app.js' }) });
  port = Number(new URL(await workbook.listen(0)).port);
});

afterAll(() => workbook.close());

describe('who it answers', () => {
  test('its own address, by IP or as localhost', async () => {
    expect((await raw(port, { path: '/api/labs' })).status).toBe(200);
    expect((await raw(port, { path: '/api/labs', host: `localhost:${port}` })).status).toBe(200);
  });

  test.each([
    ['a rebinding attack: a foreign Host header', { host: 'evil.example' }],
    ['the right host on another port', { host: '127.0.0.1:1' }],
    ['another site\'s page (foreign Origin)', { origin: 'http://evil.example' }],
    ['a page on another local port', { origin: 'http://127.0.0.1:9' }],
  ])('refuses %s', async (_, headers) => {
    const res = await raw(port, { path: '/api/labs', ...headers });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body).error).toMatch(/refused|only answers/);
  });

  test('binds 127.0.0.1 only', () => {
    expect(workbook.server.address().address).toBe('127.0.0.1');
  });
});

describe('what it does', () => {
  // Three labs from the list, in the order the queue test posts them.
  const [A, C, B] = LABS.map((l) => l.slug);
  test('lists the labs', async () => {
    const { labs } = JSON.parse((await raw(port, { path: '/api/labs' })).body);
    // Every lab of labs/labs.json, in its order (the list grows as labs are added).
    expect(labs.map((l) => l.slug)).toEqual(require('../scripts/lib/labs').labs.map((l) => l.slug));
    expect(labs[0]).toMatchObject({ id: LABS[0].id, slug: LABS[0].slug });
  });

  test.each([['/api/labs/99-nope/check'], ['/api/labs/..%2F..%2Fetc/check'], [`/api/labs/${LABS[0].id}/check`]])(
    'refuses a lab it does not know by its full name: %s',
    async (path) => {
      const res = await raw(port, { method: 'POST', path });
      expect(res.status).toBe(404);
      expect(calls).toHaveLength(0);
    },
  );

  test('starts a check only on POST, and offers nothing else', async () => {
    expect((await raw(port, { path: `/api/labs/${LABS[0].slug}/check` })).status).toBe(405);
    expect((await raw(port, { method: 'POST', path: '/api/run', origin: `http://127.0.0.1:${port}` })).status).toBe(404);
    expect(calls).toHaveLength(0);
  });

  test('runs one check at a time and queues the rest, in order', async () => {
    const post = (slug) => raw(port, { method: 'POST', path: `/api/labs/${slug}/check`, origin: `http://127.0.0.1:${port}` }).then((r) => JSON.parse(r.body).job);
    const first = await post(A);
    const second = await post(B);
    const third = await post(C);
    expect(calls.map((c) => c.lab)).toEqual([A]); // only the first runs
    const status = JSON.parse((await raw(port, { path: '/api/labs' })).body);
    expect(status).toMatchObject({ running: A, waiting: 2 });

    const followFirst = events(port, first.id);
    release.shift()();
    const firstEvents = await followFirst;
    expect(firstEvents.map((e) => e.type)).toEqual(['queued', 'started', 'progress', 'result']);
    expect(firstEvents[0].position).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(calls.map((c) => c.lab)).toEqual([A, B]); // then the next, alone

    release.shift()();
    const secondEvents = await events(port, second.id);
    expect(secondEvents.map((e) => e.type)).toEqual(['queued', 'started', 'progress', 'result']);
    expect(secondEvents[0].position).toBe(2);
    expect(secondEvents.at(-1)).toMatchObject({ type: 'result', result: { lab: B, verdict: 'pass' } });

    await new Promise((r) => setImmediate(r));
    release.shift()();
    const thirdEvents = await events(port, third.id);
    // Third in line, then second once the first finished, then its turn.
    expect(thirdEvents.filter((e) => e.type === 'queued').map((e) => e.position)).toEqual([3, 2]);
    expect(thirdEvents.at(-1).type).toBe('result');
    expect(calls.map((c) => c.lab)).toEqual([A, B, C]);
  });

  test('an unknown job is a plain 404', async () => {
    const res = await raw(port, { path: '/api/jobs/00000000-0000-0000-0000-000000000000/events' });
    expect(res.status).toBe(404);
  });
});
