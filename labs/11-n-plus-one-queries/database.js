'use strict';
// The lab's database: a real PostgreSQL (18, compiled to WebAssembly by the
// PGlite project, @electric-sql/pglite), served over PostgreSQL's own wire
// protocol by @electric-sql/pglite-socket, so that app.js connects to it with
// `pg` exactly as it would connect to a PostgreSQL server. Nothing to install
// beyond `npm ci`; its data lives in memory and is gone when it stops.
//
// You do not need to change this file. app.js calls startDatabase(), which
// runs the database in a child process of its own (another program, as a
// database server is: the app's profiles show the app alone) and ends it
// when the app exits. When DATABASE_URL is set, it uses that instead: the
// workbook's check runs its own database, so it can count your queries.
//
// Between the app and the database sits wire.js, standing in for the
// network: every round trip takes DATABASE_DELAY_MS longer (2 unless set),
// as it would to a database on another machine. DATABASE_LOG=1 prints
// PostgreSQL's statement log (log_statement = 'all'). The extension
// pg_stat_statements is installed, and counts planning time too
// (track_planning), so the database counts its statements itself. Run
// `node database.js` on its own to start the database alone.
//
// The schema and its data:
//   customers    (id, name)
//   orders       (id, customer_id, placed_at, status): customer n has
//                (7 n mod 45) orders, from none to 44
//   order_items  (order_id, line, sku, name, quantity, unit_price_cents):
//                one to four lines per order
// with the indexes the lab's queries need.
//
// One session, many connections. PGlite is one PostgreSQL session (one
// backend), and pglite-socket lets many connections share it. Its 0.2.17,
// which package.json pins exactly, queues every message of every
// connection, one at a time, onto that session (QueryQueueManager in
// packages/pglite-socket/src/index.ts: each message is one queue entry, run
// in db.runExclusive()). Between two messages of one connection it keeps
// the others out only inside a transaction block (BEGIN … COMMIT, seen
// through PGlite's isInTransaction()); an extended-protocol round trip
// (Parse, Bind, Describe, Execute, Sync) is not one, and its unnamed
// statement and portal live in the shared session, so another connection's
// Parse between them would replace them. What keeps a round trip whole is
// timing: the handler runs the complete messages of one read in a chain of
// promises, and each runs synchronously in WebAssembly (with this in-memory
// file system, nothing to wait for), so another connection's bytes, which
// wait for a setImmediate of their own, cannot come in between. wire.js
// sends each round trip in one write, which arrives in one read unless it
// is larger than Node reads from a socket at once (64 KiB, the size libuv
// asks for; this lab's round trips are a few hundred bytes). A later
// pglite-socket may queue differently: that is why the version is pinned.
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { fork } = require('node:child_process');

const CUSTOMERS = 1000;

const SCHEMA = `
CREATE TABLE customers (
  id integer PRIMARY KEY,
  name text NOT NULL
);
CREATE TABLE orders (
  id integer PRIMARY KEY,
  customer_id integer NOT NULL REFERENCES customers,
  placed_at timestamptz NOT NULL,
  status text NOT NULL
);
CREATE INDEX orders_by_customer ON orders (customer_id, placed_at DESC, id DESC);
CREATE TABLE order_items (
  order_id integer NOT NULL REFERENCES orders,
  line integer NOT NULL,
  sku text NOT NULL,
  name text NOT NULL,
  quantity integer NOT NULL,
  unit_price_cents integer NOT NULL,
  PRIMARY KEY (order_id, line)
);
`;

const SEED = `
INSERT INTO customers
  SELECT n, 'Customer ' || n FROM generate_series(1, ${CUSTOMERS}) n;
INSERT INTO orders
  SELECT c.id * 100 + k, c.id,
         timestamptz '2026-01-01 09:00:00+00' + (c.id * 7 + k * 61) * interval '1 hour',
         (ARRAY['placed', 'paid', 'shipped', 'delivered'])[1 + (c.id + k) % 4]
    FROM customers c, generate_series(1, (c.id * 7) % 45) k;
INSERT INTO order_items
  SELECT o.id, line,
         'SKU-' || lpad(((o.id * 13 + line * 7) % 500)::text, 4, '0'),
         (ARRAY['desk lamp', 'notebook', 'kettle', 'headphones', 'backpack', 'plant pot', 'mug', 'chair'])[1 + (o.id + line) % 8],
         1 + (o.id + line) % 3,
         199 + (o.id * 31 + line * 17) % 9800
    FROM orders o, generate_series(1, 1 + o.id % 4) line;
`;

const DEFAULT_DELAY_MS = 2;

function loadPglite() {
  const { PGlite } = require('@electric-sql/pglite');
  const { pg_stat_statements } = require('@electric-sql/pglite/contrib/pg_stat_statements');
  return { PGlite, extensions: { pg_stat_statements } };
}

/**
 * Where the prepared database is kept: running initdb in WebAssembly takes
 * seconds, so it is done once and its files kept, as a tar.gz, beside the
 * packages (node_modules/.cache, which the next `npm ci` clears, with the
 * PGlite that made it). The name holds PGlite's version and a hash of the
 * schema and data, so a change to either prepares it again.
 */
function templateFile() {
  const pgliteDir = path.dirname(path.dirname(require.resolve('@electric-sql/pglite')));
  const { version } = JSON.parse(fs.readFileSync(path.join(pgliteDir, 'package.json'), 'utf8'));
  const hash = crypto.createHash('sha256').update(SCHEMA).update(SEED).digest('hex').slice(0, 12);
  return path.join(pgliteDir, '..', '..', '.cache', 'workbook-lab-11', `pglite-${version}-${hash}.tar.gz`);
}

/** The prepared database's files, made now if they are not kept yet. */
async function template(progress) {
  const file = templateFile();
  try {
    return fs.readFileSync(file);
  } catch {
    // not prepared yet
  }
  // One process prepares it; others started meanwhile (the app and a check,
  // or several programs at once) wait for its file instead of each running
  // initdb on the same cores.
  const lock = `${file}.lock`;
  let locked = false;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.closeSync(fs.openSync(lock, 'wx'));
    locked = true;
  } catch (err) {
    if (err.code === 'EEXIST') {
      progress('Waiting for another process that is preparing the database');
      const kept = await preparedElsewhere(file, lock);
      if (kept) return kept;
    }
  }
  try {
    return await prepare(file, progress);
  } finally {
    if (locked) fs.rmSync(lock, { force: true });
  }
}

/**
 * The prepared database once the process holding `lock` has written it, or
 * null if that process ended without it (its lock gone, or older than a
 * minute: left by a process that was killed).
 */
async function preparedElsewhere(file, lock) {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    try {
      return fs.readFileSync(file);
    } catch {
      // not written yet
    }
    try {
      if (Date.now() - fs.statSync(lock).mtimeMs > 60_000) {
        fs.rmSync(lock, { force: true });
        return null;
      }
    } catch {
      return null; // the lock is gone and the file was not written
    }
  }
}

async function prepare(file, progress) {
  const started = performance.now();
  progress("Preparing the database: PostgreSQL's initdb and the lab's data (once per install; a few seconds)");
  const { PGlite, extensions } = loadPglite();
  const db = await PGlite.create({ extensions });
  await db.exec(`CREATE EXTENSION pg_stat_statements;\n${SCHEMA}\n${SEED}\nANALYZE;`);
  const dump = Buffer.from(await (await db.dumpDataDir('gzip')).arrayBuffer());
  await db.close();
  // Written whole, then renamed: another process never reads half a file.
  const partial = `${file}.${process.pid}.partial`;
  try {
    fs.writeFileSync(partial, dump);
    fs.renameSync(partial, file);
  } catch (err) {
    fs.rmSync(partial, { force: true });
    progress(`(could not keep the prepared database in ${path.dirname(file)}: ${err.message}; it will be prepared again next time)`);
  }
  progress(`Prepared in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return dump;
}

/**
 * Starts the database in this process: PGlite with the lab's data, served
 * over the wire protocol by pglite-socket on 127.0.0.1 and, unless `direct`,
 * behind wire.js.
 * @param {object} [options]
 * @param {number} [options.delayMs] added to every round trip (wire.js)
 * @param {boolean} [options.direct] serve PGlite without wire.js in front
 * @param {boolean} [options.logStatements] print PostgreSQL's statement log
 * @param {(line:string) => void} [options.progress]
 * @param {(client:{clientAddress:string, clientPort:number}) => void} [options.onConnection]
 *   called for every connection the database accepts
 * @returns {Promise<{url:string, directUrl:string, version:string, close:() => Promise<void>}>}
 */
async function serveDatabase({ delayMs = DEFAULT_DELAY_MS, direct = false, logStatements = false, progress = () => {}, onConnection = () => {} } = {}) {
  const data = await template(progress);
  const { PGlite, extensions } = loadPglite();
  const { PGLiteSocketServer } = require('@electric-sql/pglite-socket');
  const db = await PGlite.create({
    loadDataDir: new Blob([data]),
    extensions,
    startParams: [...PGlite.defaultStartParams, '-c', 'pg_stat_statements.track_planning=on', ...(logStatements ? ['-c', 'log_statement=all'] : [])],
    onStderr: (line) => {
      if (logStatements) console.log(line);
      return false;
    },
  });
  // One session for every connection (see the top of this file): while one
  // connection is inside BEGIN … COMMIT, the others wait.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 100 });
  server.addEventListener('connection', (event) => onConnection(event.detail));
  await server.start();
  const directUrl = `postgres://postgres@127.0.0.1:${server.port}/postgres`;
  const { rows } = await db.query('SHOW server_version');
  const wire = direct ? null : await require('./wire').startWire({ upstream: { host: '127.0.0.1', port: server.port }, delayMs });
  return {
    url: wire ? wire.url : directUrl,
    directUrl,
    version: `PostgreSQL ${rows[0].server_version} (PGlite ${require(path.join(path.dirname(path.dirname(require.resolve('@electric-sql/pglite'))), 'package.json')).version})`,
    async close() {
      if (wire) await wire.close();
      await server.stop();
      await db.close();
    },
  };
}

/**
 * The database URL for the app: DATABASE_URL when it is set, otherwise a
 * database of the app's own, started in a child process that ends with it.
 * @returns {Promise<string>}
 */
async function startDatabase() {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  // A plain node for the database: none of the app's flags or profilers.
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = fork(__filename, [], { execArgv: [], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  process.once('exit', () => child.kill());
  const url = await new Promise((resolve, reject) => {
    child.on('message', (m) => m && m.url && resolve(m.url));
    child.once('exit', (code) => reject(new Error(`the database stopped during start-up (exit code ${code})`)));
  });
  child.removeAllListeners('exit');
  // A database that stops under the app leaves it nothing to answer with.
  child.once('exit', (code, signal) => {
    console.error(`The lab's database stopped (${signal ? `signal ${signal}` : `exit code ${code}`}); stopping the app too.`);
    process.exit(1);
  });
  // Neither the child nor its channel keeps the app alive: the app exits
  // when its own work is done, and the child follows it.
  child.channel.unref();
  child.unref();
  return url;
}

if (require.main === module) {
  const direct = process.argv.includes('--direct');
  const delayMs = Number(process.env.DATABASE_DELAY_MS ?? DEFAULT_DELAY_MS);
  const started = performance.now();
  const say = (line) => console.log(`[database] ${line}`);
  // Started by an app (or the check): when it is gone, so is the reason to
  // run, even half-way through start-up.
  if (process.send) process.on('disconnect', () => process.exit(0));
  // Every connection the database accepted, by the client's port: the check
  // asks for them, to find connections that did not come through its wire.
  const accepted = [];
  if (process.send) process.on('message', (m) => m && m.ask === 'connections' && process.send({ connections: accepted }, () => {}));
  serveDatabase({ delayMs, direct, logStatements: process.env.DATABASE_LOG === '1', progress: say, onConnection: (c) => accepted.push(c.clientPort) }).then(
    (database) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      if (!direct) {
        say(`${database.version} ready in ${seconds} s at ${database.url}`);
        say(`every round trip to it takes ${delayMs} ms longer (DATABASE_DELAY_MS)${process.env.DATABASE_LOG === '1' ? '; its statement log follows' : ''}`);
      }
      if (process.send) process.send({ url: database.url, directUrl: database.directUrl }, (err) => err && process.exit(0));
      for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => database.close().finally(() => process.exit(0)));
    },
    (err) => {
      console.error(`The lab's database could not start: ${err.message}`);
      process.exit(1);
    },
  );
}

module.exports = { startDatabase, serveDatabase, templateFile, SCHEMA, SEED, CUSTOMERS, DEFAULT_DELAY_MS };
