#!/usr/bin/env node
'use strict';
// `node scripts/dev/per-request-self-time.js --requests N [--app FILE] PROFILE.cpuprofile`
//
// Lab 02's "self time per request" table, from a CPU profile written by
// `npx workbook profile 02 --tool cpu` (which prints the responses served
// under the profiler): each group's self time in microseconds, divided by
// the requests. Percentages of a profile hide what a request costs, and the
// profile reader's "by origin" files work where it *runs*; this groups a
// few rows by who asked for the work (node:crypto under the `etag` package
// is the ETag's), which is how the walkthrough reads them.

const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { originOf } = require('../profile/read/origin');
const { indexTree } = require('../profile/read/cpuprofile');

// The packages a Fastify app runs on a request (the rest of node_modules in
// these two apps is Express and its helpers).
const FASTIFY_FAMILY = /^(fastify|@fastify\/|find-my-way|fast-json-stringify|fast-querystring|fast-decode-uri-component|light-my-request|avvio|toad-cache|rfdc|process-warning|secure-json-parse|abstract-logging|pino|json-schema-ref-resolver|ajv)/;

// The native calls that write a response to the socket (Node's stream_wrap:
// a Buffer list goes out through writev, a lone string through its own
// write), and the JavaScript wrappers that call them.
const SENDS = new Set(['writev', 'writevGeneric', 'writeGeneric', 'writeUtf8String', 'writeLatin1String', 'writeAsciiString', 'writeBuffer']);

const ROWS = [
  ['express', 'Express, its router and helpers (`router`, `body-parser`, `parseurl`, …)'],
  ['fastify', 'Fastify, `find-my-way` and the compiled serialisers'],
  ['http', "Node's HTTP layer (`node:_http_*`)"],
  ['node', 'other Node internals (events, streams, timers)'],
  ['etag', 'ETag: SHA-1 of every body (`etag` → `node:crypto`)'],
  ['query', 'query parsing (`node:querystring`)'],
  ['gc', 'garbage collection'],
  ['app', "the app's own code"],
  ['writev', 'the system call that sends each response (`writev`; `writeUtf8String` for a string body) and its wrapper'],
  ['engine', 'V8 and other native code'],
];

/** The row a sample's leaf frame belongs to, given its stack (leaf first). */
function rowOf(stack, appFile) {
  const leaf = stack[0].callFrame;
  const name = leaf.functionName;
  if (name === '(garbage collector)') return 'gc';
  if (SENDS.has(name)) return 'writev';
  const origin = originOf(leaf.url, appFile);
  if (origin.kind === 'app') return 'app';
  if (origin.kind === 'package') {
    if (origin.package === 'etag') return 'etag';
    return FASTIFY_FAMILY.test(origin.package) ? 'fastify' : 'express';
  }
  if (origin.kind === 'node') {
    if (leaf.url === 'node:querystring') return 'query';
    if (leaf.url.startsWith('node:internal/crypto') && stack.some((n) => originOf(n.callFrame.url, appFile).package === 'etag')) return 'etag';
    if (leaf.url.startsWith('node:_http_')) return 'http';
    return 'node';
  }
  // Code with no file but a script of its own is generated JavaScript
  // (fast-json-stringify compiles each response schema with new Function).
  if (!leaf.url && leaf.scriptId && leaf.scriptId !== '0' && stack.some((n) => FASTIFY_FAMILY.test(originOf(n.callFrame.url, appFile).package || ''))) return 'fastify';
  return 'engine';
}

/** Microseconds of self time per request, per row, skipping idle and (program) samples. */
function perRequest(profile, requests, appFile) {
  // The profile reader's own index of the tree: nodes by id, each node's parent's id.
  const { byId, parent } = indexTree(profile, new Map());
  const stackOf = new Map();
  const stack = (id) => {
    if (!stackOf.has(id)) {
      const frames = [];
      for (let n = byId.get(id); n; n = byId.get(parent.get(n.id))) frames.push(n);
      stackOf.set(id, frames);
    }
    return stackOf.get(id);
  };
  const totals = Object.fromEntries(ROWS.map(([id]) => [id, 0]));
  // timeDeltas[i] is the time between sample i-1 and sample i: it belongs to sample i.
  profile.samples.forEach((id, i) => {
    const name = byId.get(id).callFrame.functionName;
    if (name === '(idle)' || name === '(program)' || name === '(root)') return;
    totals[rowOf(stack(id), appFile)] += profile.timeDeltas[i] || 0;
  });
  const rows = ROWS.map(([id, label]) => ({ id, label, us: totals[id] / requests }));
  return { rows, total: rows.reduce((sum, r) => sum + r.us, 0) };
}

if (require.main === module) {
  const { values, positionals } = parseArgs({ options: { requests: { type: 'string' }, app: { type: 'string' } }, allowPositionals: true });
  const requests = Number(values.requests);
  if (positionals.length !== 1 || !(requests > 0)) {
    console.error('Usage: node scripts/dev/per-request-self-time.js --requests N [--app FILE] PROFILE.cpuprofile');
    process.exit(2);
  }
  const profile = JSON.parse(fs.readFileSync(positionals[0], 'utf8'));
  const { rows, total } = perRequest(profile, requests, values.app && path.resolve(values.app));
  for (const r of rows) console.log(`${r.us.toFixed(1).padStart(7)} µs  ${r.label}`);
  console.log(`${total.toFixed(1).padStart(7)} µs  total (${requests} requests)`);
}

module.exports = { perRequest, rowOf };
