'use strict';
// The check's own database, and the network in front of it. The database is
// the lab's (database.js, PostgreSQL in PGlite with the lab's data) in a
// child process of the check, served as is; the check puts wire.js in front
// of it, in its own process, with a delay d, and keeps every statement the
// app sends there with the time it arrived. The app gets the proxy's URL as
// DATABASE_URL. The check itself reads and changes the data on a connection
// of its own, straight to the database, which is neither delayed nor
// counted.
//
// Why a proxy at the wire rather than the database's own statement log: it
// sees exactly what the app sends, whatever client or pool the app uses, the
// moment it is sent (so it can tell which request a statement belongs to);
// and because it holds every round trip for d, a request's latency is
// counted in round trips of d, which no machine can shorten: PGlite answers
// these queries in well under a millisecond, d is 20 ms.

const path = require('node:path');
const { fork } = require('node:child_process');
const { Client } = require('pg');
const { track } = require('../../../scripts/harness/children');

const LAB = path.join(__dirname, '..');

/**
 * @param {object} options
 * @param {number} options.delayMs d
 * @param {(line:string) => void} options.progress
 * @returns {Promise<{url:string, ready:Promise<import('pg').Client>, statements:object[],
 *   connections:() => number, close:() => Promise<void>}>} resolves once the proxy listens;
 *   `ready` with the check's own connection, once the database is up
 */
async function startOwnedDatabase({ delayMs, progress }) {
  const { startWire } = require(path.join(LAB, 'wire'));
  // A plain node for the database, as database.js itself starts one.
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  delete env.DATABASE_URL;
  const child = track(fork(path.join(LAB, 'database.js'), ['--direct'], { execArgv: [], env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] }));
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk).slice(-4000);
    // Its progress (the first start after an install prepares its files).
    for (const line of String(chunk).split('\n')) if (line.startsWith('[database] ')) progress(line.slice(11));
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const address = new Promise((resolve, reject) => {
    child.on('message', (m) => m && m.directUrl && resolve(m.directUrl));
    exited.then((code) => reject(new Error(`The check's database stopped during start-up (exit code ${code}): ${output.trim().split('\n').slice(-3).join(' ')}`)));
  });
  address.catch(() => {}); // reported through `ready`

  const statements = [];
  const wire = await startWire({
    upstream: address.then((url) => ({ host: '127.0.0.1', port: Number(new URL(url).port) })),
    delayMs,
    onStatement: (s) => statements.push(s),
  });
  let sql = null;
  const ready = address.then(async (url) => {
    sql = new Client({ connectionString: url });
    sql.on('error', () => {}); // the database going away is reported where it matters
    await sql.connect();
    return sql;
  });
  ready.catch(() => {});

  return {
    url: wire.url,
    ready,
    statements,
    connections: wire.connections,
    async close() {
      await wire.close();
      if (sql) await sql.end().catch(() => {}); // the database may be gone already
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 2000);
        await exited;
        clearTimeout(killer);
      }
    },
  };
}

module.exports = { startOwnedDatabase };
