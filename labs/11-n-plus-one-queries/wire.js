'use strict';
// The network between the app and its database. A small TCP proxy that
// reads just enough of PostgreSQL's wire protocol (the messages a client
// sends: https://www.postgresql.org/docs/current/protocol-message-formats.html)
// to do three things:
//
// - Hold every round trip for a fixed delay before it reaches the database,
//   as a network between two machines does (DATABASE_DELAY_MS in the lab;
//   the check's d). A query that waits for the one before it pays the delay
//   again; queries sent together pay it once.
// - Tell whoever listens about every statement the app sends, as it
//   arrives: its SQL, and whether it reads data, controls a transaction or
//   changes something. The check counts them per request.
// - Keep each connection's named prepared statements its own. PGlite is one
//   PostgreSQL session, shared by every connection pglite-socket accepts, so
//   two connections that prepare a statement of the same name would
//   collide; the proxy adds a prefix of its own to each name.
//
// You do not need to change this file (and the check makes sure it is as
// shipped). database.js puts it between your app and PGlite.

const net = require('node:net');

// Codes of the messages a client sends before its startup message.
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
// Messages after which a client waits for the server: the end of a round trip.
const ROUND_TRIP_ENDS = new Set(['S', 'Q', 'H', 'X', 'p', 'F', 'c', 'f']);

/**
 * Splits a client's byte stream into whole messages. The first message (and
 * any SSL or GSSAPI request before it) has no type byte; every later one is
 * a type byte and an int32 length that counts itself.
 */
class MessageReader {
  constructor() {
    this.pending = Buffer.alloc(0);
    this.started = false;
  }

  /** @returns {Array<{type:string, raw:Buffer}>} the messages now complete */
  push(chunk) {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const out = [];
    for (;;) {
      if (!this.started) {
        if (this.pending.length < 8) break;
        const length = this.pending.readInt32BE(0);
        if (length < 8 || length > 10_000) throw new Error(`not a PostgreSQL startup message (length ${length})`);
        if (this.pending.length < length) break;
        const code = this.pending.readInt32BE(4);
        const type = code === SSL_REQUEST || code === GSSENC_REQUEST ? 'encryption' : code === CANCEL_REQUEST ? 'cancel' : 'startup';
        if (type === 'startup') this.started = true;
        out.push({ type, raw: this.pending.subarray(0, length) });
        this.pending = this.pending.subarray(length);
      } else {
        if (this.pending.length < 5) break;
        const length = this.pending.readInt32BE(1);
        if (length < 4) throw new Error(`a message of impossible length ${length}`);
        if (this.pending.length < 1 + length) break;
        out.push({ type: String.fromCharCode(this.pending[0]), raw: this.pending.subarray(0, 1 + length) });
        this.pending = this.pending.subarray(1 + length);
      }
    }
    // Keep only the unfinished tail, not the whole chunk it came from.
    if (this.pending.length && this.pending.byteOffset) this.pending = Buffer.from(this.pending);
    return out;
  }
}

/** Reads the NUL-terminated strings at the start of a message body. */
function cstrings(body, count, from = 0) {
  const values = [];
  let at = from;
  for (let i = 0; i < count; i++) {
    const end = body.indexOf(0, at);
    if (end < 0) throw new Error('a message with an unterminated string');
    values.push(body.toString('utf8', at, end));
    at = end + 1;
  }
  return { values, rest: at };
}

function message(type, parts) {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

const cstring = (s) => Buffer.from(`${s}\0`, 'utf8');

/**
 * Follows one connection's extended-protocol state (which SQL each named
 * statement and portal holds) and gives prepared statements and portals
 * names of their own on the shared session.
 */
class Session {
  constructor(prefix) {
    this.prefix = prefix;
    this.statements = new Map(); // name as the client knows it -> SQL
    this.portals = new Map(); // portal name -> SQL
  }

  name(n) {
    return n === '' ? '' : this.prefix + n;
  }

  /**
   * @returns {{raw:Buffer, sql?:string, executed?:string}} the message to
   *   forward; `sql` when it carries a simple query, `executed` when it
   *   executes a prepared statement (its SQL)
   */
  read({ type, raw }) {
    const body = raw.subarray(5);
    switch (type) {
      case 'Q':
        return { raw, sql: cstrings(body, 1).values[0] };
      case 'P': {
        const { values: [name, sql], rest } = cstrings(body, 2);
        this.statements.set(name, sql);
        return { raw: name ? message('P', [cstring(this.name(name)), cstring(sql), body.subarray(rest)]) : raw };
      }
      case 'B': {
        const { values: [portal, statement], rest } = cstrings(body, 2);
        this.portals.set(portal, this.statements.get(statement) ?? '');
        return { raw: portal || statement ? message('B', [cstring(this.name(portal)), cstring(this.name(statement)), body.subarray(rest)]) : raw };
      }
      case 'E': {
        const { values: [portal], rest } = cstrings(body, 1);
        return { raw: portal ? message('E', [cstring(this.name(portal)), body.subarray(rest)]) : raw, executed: this.portals.get(portal) ?? '' };
      }
      case 'D':
      case 'C': {
        const kind = body.subarray(0, 1);
        const { values: [name] } = cstrings(body, 1, 1);
        if (type === 'C') (kind.toString() === 'S' ? this.statements : this.portals).delete(name);
        return { raw: name ? message(type, [kind, cstring(this.name(name))]) : raw };
      }
      default:
        return { raw };
    }
  }
}

/**
 * The statements in a string of SQL, split at the semicolons that end them
 * (not those inside strings, quoted names, dollar quotes or comments). Each
 * comes with `code`, the statement with its literals and comments blanked
 * out, for telling what kind of statement it is.
 * @returns {Array<{text:string, code:string}>}
 */
function splitStatements(sql) {
  const statements = [];
  let text = '';
  let code = '';
  const finish = () => {
    if (code.trim()) statements.push({ text: text.trim(), code: code.trim() });
    text = '';
    code = '';
  };
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const next = sql[i + 1];
    let end = i + 1;
    let blank = false;
    if (c === '-' && next === '-') {
      end = sql.indexOf('\n', i);
      end = end < 0 ? sql.length : end;
      blank = true;
    } else if (c === '/' && next === '*') {
      let depth = 0;
      let j = i;
      while (j < sql.length) {
        if (sql[j] === '/' && sql[j + 1] === '*') (depth++, (j += 2));
        else if (sql[j] === '*' && sql[j + 1] === '/') {
          depth--;
          j += 2;
          if (depth === 0) break;
        } else j++;
      }
      end = j;
      blank = true;
    } else if (c === "'" || c === '"') {
      // E'…' strings take backslash escapes; others only a doubled quote.
      const escapes = c === "'" && /[eE]/.test(sql[i - 1] || '') && !/[\w$]/.test(sql[i - 2] || '');
      let j = i + 1;
      while (j < sql.length) {
        if (escapes && sql[j] === '\\') j += 2;
        else if (sql[j] === c && sql[j + 1] === c) j += 2;
        else if (sql[j] === c) break;
        else j++;
      }
      end = Math.min(j + 1, sql.length);
      blank = c === "'";
    } else if (c === '$' && !/[\w$]/.test(sql[i - 1] || '')) {
      const tag = /^\$([A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)?\$/.exec(sql.slice(i));
      if (tag) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        end = close < 0 ? sql.length : close + tag[0].length;
        blank = true;
      }
    } else if (c === ';') {
      finish();
      i++;
      continue;
    }
    const piece = sql.slice(i, end);
    text += piece;
    code += blank ? ' '.repeat(piece.length) : piece;
    i = end;
  }
  finish();
  return statements;
}

// The first word of a statement says what it does. Reads are what the check
// counts as queries; transaction control and session settings are round
// trips but not queries; anything else changes the database.
const READS = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE', 'EXECUTE', 'EXPLAIN', 'FETCH', 'MOVE', 'DECLARE']);
const CONTROL = new Set(['BEGIN', 'START', 'COMMIT', 'END', 'ROLLBACK', 'ABORT', 'SAVEPOINT', 'RELEASE', 'PREPARE', 'DEALLOCATE', 'SET', 'RESET', 'SHOW', 'DISCARD', 'CLOSE', 'LISTEN', 'UNLISTEN']);

/** 'read', 'control' or 'change', from a statement's `code` (see splitStatements). */
function kindOf(code) {
  const word = (/^[\s(]*([A-Za-z]+)/.exec(code) || [])[1]?.toUpperCase();
  if (CONTROL.has(word)) return 'control';
  if (!READS.has(word)) return 'change';
  // A WITH can hold an INSERT, UPDATE or DELETE, and SELECT … INTO creates a
  // table; FOR UPDATE and FOR NO KEY UPDATE only lock the rows they read.
  const words = code.toUpperCase().replace(/\bFOR\s+(NO\s+KEY\s+)?UPDATE\b/g, ' ');
  if (word === 'WITH' && /\b(INSERT|UPDATE|DELETE|MERGE)\b/.test(words)) return 'change';
  if (word === 'SELECT' && /\bINTO\b/.test(words)) return 'change';
  if (word === 'EXPLAIN' && /\bANALYZE\b/.test(words) && /\b(INSERT|UPDATE|DELETE|MERGE)\b/.test(words)) return 'change';
  return 'read';
}

/** One statement as the proxy saw it. */
function statementOf(text, code, connection, protocol) {
  return { connection, at: performance.now(), protocol, kind: kindOf(code), text };
}

let nextConnection = 1;

/**
 * Starts the proxy on 127.0.0.1.
 * @param {object} options
 * @param {{host:string, port:number}|Promise<{host:string, port:number}>} options.upstream
 *   where the database listens (a promise: the proxy can take connections before the
 *   database is up, and holds them until it is)
 * @param {number} [options.delayMs=0] how long each round trip is held before it is sent on
 * @param {(statement:{connection:number, at:number, protocol:'simple'|'extended',
 *   kind:'read'|'control'|'change', text:string}) => void} [options.onStatement]
 * @param {number} [options.port=0]
 * @returns {Promise<{port:number, url:string, connections:() => number, close:() => Promise<void>}>}
 */
async function startWire({ upstream, delayMs = 0, onStatement = () => {}, port = 0 }) {
  const sockets = new Set();
  const timers = new Set();
  let opened = 0;

  const server = net.createServer((client) => {
    const id = nextConnection++;
    opened++;
    const reader = new MessageReader();
    const session = new Session(`wire${id}_`);
    const queue = []; // round trips waiting out their delay: { at, bytes }
    let batch = [];
    let database = null;
    let timer = null;
    sockets.add(client);
    client.setNoDelay(true);

    const end = () => {
      client.destroy();
      if (database) database.destroy();
      if (timer) (clearTimeout(timer), timers.delete(timer));
      sockets.delete(client);
      if (database) sockets.delete(database);
    };

    // Sends every round trip whose delay is over, in order, one write each:
    // pglite-socket runs the messages of one write together, so a round
    // trip is never interleaved with another connection's.
    const release = () => {
      if (timer) (timers.delete(timer), (timer = null));
      if (!database || database.connecting) return;
      const now = performance.now();
      while (queue.length && queue[0].at <= now) database.write(queue.shift().bytes);
      if (queue.length) {
        timer = setTimeout(release, Math.max(0, queue[0].at - performance.now()));
        timers.add(timer);
      }
    };

    client.on('data', (chunk) => {
      let messages;
      try {
        messages = reader.push(chunk);
      } catch (err) {
        client.end(message('E', [Buffer.from(`SFATAL\0C08P01\0M${err.message}\0\0`)]));
        end();
        return;
      }
      for (const m of messages) {
        const read = session.read(m);
        if (read.sql !== undefined) for (const s of splitStatements(read.sql)) onStatement(statementOf(s.text, s.code, id, 'simple'));
        if (read.executed !== undefined) {
          const [s = { text: read.executed, code: read.executed }] = splitStatements(read.executed);
          onStatement(statementOf(s.text, s.code, id, 'extended'));
        }
        batch.push(read.raw);
        if (m.type.length > 1 || ROUND_TRIP_ENDS.has(m.type)) {
          queue.push({ at: performance.now() + delayMs, bytes: Buffer.concat(batch) });
          batch = [];
        }
      }
      if (!timer) release();
    });
    client.on('error', end);
    client.on('close', end);

    Promise.resolve(upstream).then(
      ({ host, port: upstreamPort }) => {
        if (client.destroyed) return;
        database = net.connect({ host, port: upstreamPort, noDelay: true });
        sockets.add(database);
        database.on('connect', release);
        database.on('data', (chunk) => client.write(chunk));
        database.on('error', end);
        database.on('close', end);
      },
      () => end(),
    );
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const listening = server.address().port;
  return {
    port: listening,
    url: `postgres://postgres@127.0.0.1:${listening}/postgres`,
    /** How many connections the app has opened through the proxy so far. */
    connections: () => opened,
    close: () =>
      new Promise((resolve) => {
        for (const t of timers) clearTimeout(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

module.exports = { startWire, splitStatements, kindOf, MessageReader, Session };
