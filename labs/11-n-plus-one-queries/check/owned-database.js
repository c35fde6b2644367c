'use strict';
// The check's own database, and the network in front of it: the one place
// the check starts them (startOwnedDatabase). The database is the lab's
// (database.js, PostgreSQL in PGlite with the lab's data) in a child process
// of the check, served as is; the check puts wire.js in front of it, in its
// own process, with a delay d, and keeps every statement the database ran
// for the app, with the moment its answer came back and the command tag
// PostgreSQL reported for it. The app gets the proxy's URL as DATABASE_URL.
// The check itself reads and changes the data on a connection of its own,
// straight to the database, which is neither delayed nor counted.
//
// Why a proxy at the wire rather than the database's own statement log: it
// sees every statement the app's connections run, whatever client or pool
// the app uses, the moment its answer comes back (so it can tell which
// request it belongs to); and because it holds every round trip for d, a
// request's latency is counted in round trips of d, which no machine can
// shorten: PGlite answers these queries in well under a millisecond, d is
// 20 ms. What it counts comes from the database's replies (CommandComplete
// and the like), never from parsing the SQL the app sent, which PostgreSQL
// may read differently.
//
// Two ledgers keep the proxy honest:
// - Connections. pglite-socket accepts any connection on its port, so an app
//   could reach the database around the proxy, unseen. The database reports
//   the client port of every connection it accepts; each must be one the
//   proxy made (or the check's own).
// - Writes. A command tag says "SELECT 1" for SELECT … INTO, setval() or a
//   function that writes. PostgreSQL gives a transaction an id only when it
//   writes (or locks rows, or asks for one): the ids handed out since the
//   app could first connect, less the check's own, are the app's writes.

const path = require('node:path');
const { fork } = require('node:child_process');
const { Client } = require('pg');
const { track } = require('../../../scripts/harness/children');
const { AppError } = require('../../../scripts/harness/app-process');

const LAB = path.join(__dirname, '..');

// The check's own queries give up after this long: an app that leaves a
// transaction open holds the one session (pglite-socket serves no other
// connection meanwhile), and the check must say so rather than wait forever.
const CHECK_QUERY_TIMEOUT_MS = 5000;

const NEXT_ID = 'SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS next';

/**
 * @param {object} options
 * @param {number} options.delayMs d
 * @param {(line:string) => void} options.progress
 * @returns {Promise<OwnedDatabase>} once the proxy listens; `ready` resolves with the
 *   check's own connection once the database is up (the proxy holds the app's
 *   connections until then)
 */
async function startOwnedDatabase({ delayMs, progress }) {
  const { startWire } = require(path.join(LAB, 'wire'));
  // A plain node for the database, as database.js itself starts one; and no
  // statement log, whatever the learner's shell still has set.
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  delete env.DATABASE_URL;
  delete env.DATABASE_LOG;
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

  let sql = null;
  let ownPort = null;
  let firstId = null; // the first transaction id the app could have been given
  const ownIds = new Set(); // the check's own writes
  const ready = address.then(async (url) => {
    sql = new Client({ connectionString: url, query_timeout: CHECK_QUERY_TIMEOUT_MS });
    sql.on('error', () => {}); // the database going away is reported where it matters
    await sql.connect();
    ownPort = sql.connection.stream.localPort;
    firstId = BigInt((await sql.query(NEXT_ID)).rows[0].next);
    return sql;
  });
  ready.catch(() => {});

  const statements = [];
  const wire = await startWire({
    // The app's connections wait until the check has read where the
    // database's transaction ids stand.
    upstream: ready.then(() => address).then((url) => ({ host: '127.0.0.1', port: Number(new URL(url).port) })),
    delayMs,
    onStatement: (s) => statements.push(s),
  });

  /** The check's own query, with a failure that says what held it up. */
  async function ask(text, values) {
    try {
      return await sql.query(text, values);
    } catch (err) {
      if (/timeout/i.test(err.message)) {
        throw new AppError(
          `The check could not read its database for ${CHECK_QUERY_TIMEOUT_MS / 1000} s: a connection of the app held it (a transaction left open keeps every other connection waiting).`,
          { reason: 'database-held', detail: err.message },
        );
      }
      throw err;
    }
  }

  /** @type {OwnedDatabase} */
  const owned = {
    url: wire.url,
    ready,
    statements,
    query: ask,
    /** How many connections the app has opened through the proxy so far. */
    connections: wire.connections,

    /**
     * Runs `change(query)` as one transaction of the check's own, so that
     * its transaction id is known not to be the app's.
     */
    async changeAsCheck(change) {
      await ask('BEGIN');
      try {
        await change(ask);
        ownIds.add(BigInt((await ask('SELECT pg_current_xact_id()::text AS id')).rows[0].id));
        await ask('COMMIT');
      } catch (err) {
        await sql.query('ROLLBACK').catch(() => {});
        throw err;
      }
    },

    /** How many transaction ids the database has given the app's statements so far: its writes. */
    async appTransactionIds() {
      const next = BigInt((await ask(NEXT_ID)).rows[0].next);
      let own = 0;
      for (const id of ownIds) if (id >= firstId && id < next) own++;
      return Number(next - firstId) - own;
    },

    /**
     * The client ports of connections the database accepted that neither
     * the proxy nor the check made: connections around the proxy.
     */
    async connectionsAround() {
      const accepted = await new Promise((resolve, reject) => {
        const onMessage = (m) => {
          if (!m || !Array.isArray(m.connections)) return;
          child.off('message', onMessage);
          clearTimeout(timer);
          resolve(m.connections);
        };
        const timer = setTimeout(() => (child.off('message', onMessage), reject(new Error("the check's database did not say which connections it accepted"))), 5000);
        child.on('message', onMessage);
        child.send({ ask: 'connections' });
      });
      // A connection the database accepted may not have finished connecting
      // on the proxy's side yet: wait until none is still being made.
      await wire.settled();
      const known = [ownPort, ...wire.upstreamPorts()];
      const around = [];
      for (const port of accepted) {
        const i = known.indexOf(port);
        if (i >= 0) known.splice(i, 1); // each connection made accounts for one accepted
        else around.push(port);
      }
      return around;
    },

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
  return owned;
}

/**
 * @typedef {object} OwnedDatabase
 * @property {string} url the proxy's URL, for the app's DATABASE_URL
 * @property {Promise<import('pg').Client>} ready the check's own connection
 * @property {object[]} statements every statement the database ran for the app, as wire.js reports them
 * @property {(text:string, values?:any[]) => Promise<import('pg').QueryResult>} query the check's own query
 * @property {() => number} connections
 * @property {(change:(query:Function) => Promise<void>) => Promise<void>} changeAsCheck
 * @property {() => Promise<number>} appTransactionIds
 * @property {() => Promise<number[]>} connectionsAround
 * @property {() => Promise<void>} close
 */

module.exports = { startOwnedDatabase, CHECK_QUERY_TIMEOUT_MS };
