#!/usr/bin/env node
'use strict';
// For workbook maintainers: lab 02's table of what each part of Express
// costs on GET /, measured under the Node that runs this script:
//   /path/to/node24 scripts/dev/lab02-costs.js [--rounds 3] [--seconds 5]
//
// Five servers, each alone on CPU 0 while autocannon (in this process) runs
// on CPU 1, in interleaved rounds: the starter as shipped, the starter
// without ETags, Express with one route and no middleware, Fastify without
// a response schema on the route, and the reference solution. It prints
// each one's median req/s and its ratio to the solution's median, the
// walkthrough's table. Linux only (taskset pins the processes); on another
// system it says so and stops.

const fs = require('node:fs');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { parseArgs } = require('node:util');
const { findLab, ROOT } = require('../lib/labs');
const { materializeShipped } = require('../lib/shipped');
const { runLoad } = require('../harness/run-load');
const { median } = require('../harness/stats');
// The fixtures' way of writing an app with small text patches (loud when a
// patch no longer applies); a maintainer's script may borrow the test helper.
const { derivedApp } = require('../../test/helpers/derived-app');

const DERIVED = path.join(ROOT, '.workbook', 'derived');

/** The five servers, as files: [label, path]. */
function variants() {
  const lab = findLab('02');
  const shipped = materializeShipped(lab);
  if (shipped.error) throw new Error(`the shipped starter is unavailable: ${shipped.error}`);
  const oneRoute = path.join(DERIVED, 'lab02-one-route.js');
  fs.mkdirSync(DERIVED, { recursive: true });
  fs.writeFileSync(
    oneRoute,
    [
      "'use strict';",
      "const express = require('express');",
      "const HOST = process.env.HOST || '127.0.0.1';",
      'const PORT = Number(process.env.PORT ?? 3000);',
      'const app = express();',
      "app.get('/', (req, res) => res.json({ hello: 'world' }));",
      'const server = app.listen(PORT, HOST, () => console.log(`Listening on http://${HOST}:${server.address().port}`));',
      '',
    ].join('\n'),
  );
  const SCHEMA = "  { schema: { response: { 200: { type: 'object', properties: { hello: { type: 'string' } } } } } },\n  async () => ({ hello: 'world' }),";
  return [
    ['the starter', shipped.app],
    ["the starter without `etag` (`app.set('etag', false)`)", derivedApp('lab02-no-etag', shipped.app, [['const app = express();', "const app = express();\napp.set('etag', false);"]])],
    ['Express with one route and no middleware', oneRoute],
    ['Fastify without schemas', derivedApp('lab02-no-schema', lab.solutionApp, [[SCHEMA, "  async () => ({ hello: 'world' }),"]])],
    ['Fastify with response schemas (the solution)', lab.solutionApp],
  ];
}

/** Starts `file` on CPU 0 and resolves with its URL and process once it prints where it listens. */
function startPinned(file) {
  const child = spawn('taskset', ['-c', '0', process.execPath, file], {
    cwd: path.dirname(file),
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${path.basename(file)} did not listen within 10 s`));
    }, 10_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${path.basename(file)} exited (${code}) before it listened`));
    });
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /Listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], child });
      }
    });
  });
}

async function main() {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, seconds: { type: 'string', default: '5' } } });
  if (process.platform !== 'linux') {
    console.error('This script pins the server and the load to one core each with taskset, which only Linux has.');
    process.exit(2);
  }
  const rounds = Number(values.rounds);
  const seconds = Number(values.seconds);
  execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  const list = variants();
  const rates = list.map(() => []);
  console.log(`Node ${process.version}: ${list.length} servers on CPU 0, autocannon on CPU 1, GET /, ${rounds} rounds of ${seconds} s each`);
  for (let r = 0; r < rounds; r++) {
    for (const [i, [label, file]] of list.entries()) {
      const { url, child } = await startPinned(file);
      try {
        await runLoad({ url, path: '/', connections: 10, duration: 1 }); // warm-up: V8 compiles the request path
        const result = await runLoad({ url, path: '/', connections: 10, duration: seconds, sampleMs: 1000 });
        if (result.non2xx || result.errors) throw new Error(`${label}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
        rates[i].push(result.requestsPerSec);
        console.log(`  round ${r + 1}/${rounds}  ${label}: ${Math.round(result.requestsPerSec).toLocaleString('en-US')} req/s`);
      } finally {
        child.kill('SIGKILL');
      }
    }
  }
  const reference = median(rates[rates.length - 1]);
  console.log('\n| App | req/s | ÷ Fastify with schemas |\n|---|---|---|');
  for (const [i, [label]] of list.entries()) {
    const m = median(rates[i]);
    console.log(`| ${label} | ${Math.round(m).toLocaleString('en-US')} | ${(m / reference).toFixed(2)} |`);
  }
}

main().catch((err) => {
  console.error(`lab02-costs: ${err.message}`);
  process.exit(1);
});
