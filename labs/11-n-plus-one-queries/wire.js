'use strict';
// The network between the app and its database. A small TCP proxy that
// reads just enough of PostgreSQL's wire protocol, in both directions
// (https://www.postgresql.org/docs/current/protocol-message-formats.html),
// to do three things:
//
// - Hold every round trip for a fixed delay before it reaches the database,
//   as a network between two machines does (DATABASE_DELAY_MS in the lab;
//   the check's d). The whole delay is added on the way in, once per round
//   trip; the answer comes back at once. A query that waits for the one
//   before it pays the delay again; queries sent together pay it once.
// - Tell whoever listens about every statement the database ran, as its
//   answer comes back: the command tag PostgreSQL reports for it
//   (CommandComplete: "SELECT 20", "INSERT 0 1", "CREATE FUNCTION"…), which
//   says what the database did whatever the SQL looked like, and the SQL
//   the app sent for it. The check counts them per request.
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

/**
 * Splits the server's byte stream into whole messages: a type byte and an
 * int32 length, except the one-byte answer ('N', 'S' or 'G') to each SSL or
 * GSSAPI request the client sent (`expectAnswer()` says one is coming).
 */
class BackendReader {
  constructor() {
    this.pending = Buffer.alloc(0);
    this.answers = 0;
  }

  expectAnswer() {
    this.answers++;
  }

  /** @returns {Array<{type:string, body:Buffer}>} the messages now complete */
  push(chunk) {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const out = [];
    for (;;) {
      if (this.answers > 0) {
        if (this.pending.length < 1) break;
        this.answers--;
        out.push({ type: 'encryption-answer', body: this.pending.subarray(0, 1) });
        this.pending = this.pending.subarray(1);
        continue;
      }
      if (this.pending.length < 5) break;
      const length = this.pending.readInt32BE(1);
      if (length < 4) throw new Error(`the database sent a message of impossible length ${length}`);
      if (this.pending.length < 1 + length) break;
      out.push({ type: String.fromCharCode(this.pending[0]), body: this.pending.subarray(5, 1 + length) });
      this.pending = this.pending.subarray(1 + length);
    }
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
 * statement and portal holds), gives prepared statements and portals names
 * of their own on the shared session, and keeps, in order, what the server
 * owes an answer to (`owed`): each simple Query, each Execute, each Sync and
 * each function call. The server answers them in the order they were sent,
 * so each answer can be matched with the SQL it came from.
 */
class Session {
  constructor(prefix) {
    this.prefix = prefix;
    this.statements = new Map(); // name as the client knows it -> SQL
    this.portals = new Map(); // portal name -> SQL
    this.owed = []; // {kind:'query'|'execute'|'call'|'sync', sql, sentAt, results}
  }

  name(n) {
    return n === '' ? '' : this.prefix + n;
  }

  /** @returns {Buffer} the message to forward to the database */
  read({ type, raw }, now = performance.now()) {
    const body = raw.subarray(5);
    switch (type) {
      case 'Q':
        this.owed.push({ kind: 'query', sql: cstrings(body, 1).values[0], sentAt: now, results: 0 });
        return raw;
      case 'P': {
        const { values: [name, sql], rest } = cstrings(body, 2);
        this.statements.set(name, sql);
        return name ? message('P', [cstring(this.name(name)), cstring(sql), body.subarray(rest)]) : raw;
      }
      case 'B': {
        const { values: [portal, statement], rest } = cstrings(body, 2);
        this.portals.set(portal, this.statements.get(statement) ?? '');
        return portal || statement ? message('B', [cstring(this.name(portal)), cstring(this.name(statement)), body.subarray(rest)]) : raw;
      }
      case 'E': {
        const { values: [portal], rest } = cstrings(body, 1);
        this.owed.push({ kind: 'execute', sql: this.portals.get(portal) ?? '', sentAt: now });
        return portal ? message('E', [cstring(this.name(portal)), body.subarray(rest)]) : raw;
      }
      case 'F':
        this.owed.push({ kind: 'call', sql: `(a function called by its oid, ${body.readInt32BE(0)})`, sentAt: now });
        return raw;
      case 'S':
        this.owed.push({ kind: 'sync' });
        return raw;
      case 'D':
      case 'C': {
        const kind = body.subarray(0, 1);
        const { values: [name] } = cstrings(body, 1, 1);
        if (type === 'C') (kind.toString() === 'S' ? this.statements : this.portals).delete(name);
        return name ? message(type, [kind, cstring(this.name(name))]) : raw;
      }
      default:
        return raw;
    }
  }

  /**
   * One message from the server. A statement's end (CommandComplete, a
   * portal suspended at its row limit, an error, a function's result) comes
   * back as `{tag, sql, sentAt, index}`: the command tag ('ERROR' for an
   * error, 'SUSPENDED' for a portal that stopped at its row limit), the SQL
   * it answered (a simple query's whole text, its `index`-th statement), and
   * when that was sent. Anything else returns null.
   */
  answer({ type, body }) {
    if (type === 'Z') {
      // Ready for the next query: everything up to this Sync or simple Query
      // is answered (Executes after an error are skipped by the server).
      while (this.owed.length) {
        const item = this.owed.shift();
        if (item.kind === 'sync' || item.kind === 'query') break;
      }
      return null;
    }
    if (!['C', 's', 'E', 'V'].includes(type)) return null;
    const head = this.owed.find((item) => item.kind !== 'sync');
    // An error with nothing owed (a failed startup) is not a statement.
    if (!head || this.owed[0].kind === 'sync') return null;
    if (head.kind !== 'query') this.owed.shift();
    else head.results++;
    const tag = type === 'C' ? cstrings(body, 1).values[0] : type === 's' ? 'SUSPENDED' : type === 'E' ? 'ERROR' : 'FUNCTION CALL';
    return { tag, sql: head.sql, sentAt: head.sentAt, index: head.kind === 'query' ? head.results : 1 };
  }
}

// What a command tag says the statement did. Transaction control, session
// settings and the handling of cursors and prepared statements are round
// trips but not queries; every other statement is a query. Of those, the
// tags below changed something for certain; a tag such as "SELECT 1" can
// still hide a change (SELECT … INTO, setval(), a function that writes),
// which the check learns from the database's transaction ids instead.
const CONTROL_TAGS = new Set([
  'BEGIN', 'START TRANSACTION', 'COMMIT', 'ROLLBACK', 'SAVEPOINT', 'RELEASE', 'SET', 'RESET', 'SHOW',
  'PREPARE', 'DEALLOCATE', 'DEALLOCATE ALL', 'DISCARD ALL', 'DISCARD PLANS', 'DISCARD SEQUENCES', 'DISCARD TEMP',
  'DECLARE CURSOR', 'CLOSE CURSOR', 'CLOSE CURSOR ALL', 'LISTEN', 'UNLISTEN', 'SET CONSTRAINTS',
]);
const CHANGE_TAGS = /^(INSERT|UPDATE|DELETE|MERGE|CREATE|ALTER|DROP|TRUNCATE|GRANT|REVOKE|COMMENT|SECURITY LABEL|REFRESH|CLUSTER|REINDEX|VACUUM|ANALYZE|IMPORT|REASSIGN|LOCK|NOTIFY|PREPARE TRANSACTION|COMMIT PREPARED|ROLLBACK PREPARED|CALL)\b/;

/** The command of a tag, without its row counts: "INSERT 0 1" -> "INSERT". */
function commandOf(tag) {
  return tag.replace(/(\s\d+)+$/, '');
}

/** 'control', 'change' or 'read', from a statement's command tag. */
function kindOfTag(tag) {
  const command = commandOf(tag);
  if (CONTROL_TAGS.has(command)) return 'control';
  if (CHANGE_TAGS.test(command)) return 'change';
  return 'read';
}

let nextConnection = 1;

/**
 * Starts the proxy on 127.0.0.1.
 * @param {object} options
 * @param {{host:string, port:number}|Promise<{host:string, port:number}>} options.upstream
 *   where the database listens (a promise: the proxy can take connections before the
 *   database is up, and holds them until it is)
 * @param {number} [options.delayMs=0] how long each round trip is held before it is sent on
 * @param {(statement:{connection:number, at:number, sentAt:number, tag:string, command:string,
 *   kind:'read'|'control'|'change', text:string, index:number}) => void} [options.onStatement]
 *   called as each statement's answer comes back (`at`; `sentAt` is when the
 *   app sent it, before the delay); `text` is the SQL it came from
 * @param {number} [options.port=0]
 * @returns {Promise<{port:number, url:string, connections:() => number,
 *   upstreamPorts:() => number[], settled:() => Promise<void>, close:() => Promise<void>}>}
 */
async function startWire({ upstream, delayMs = 0, onStatement = () => {}, port = 0 }) {
  const sockets = new Set();
  const timers = new Set();
  const connecting = new Set(); // connections to the database not yet made (or failed)
  const upstreamPorts = []; // the local port of each connection made to the database
  let opened = 0;

  const server = net.createServer((client) => {
    const id = nextConnection++;
    opened++;
    const reader = new MessageReader();
    const replies = new BackendReader();
    const session = new Session(`wire${id}_`);
    const queue = []; // round trips waiting out their delay: { at, bytes }
    let batch = [];
    let database = null;
    let timer = null;
    let ended = false;
    sockets.add(client);
    client.setNoDelay(true);

    const end = () => {
      if (ended) return;
      ended = true;
      client.destroy();
      // A connection still being made is ended once it is made (or fails):
      // until then the proxy cannot know its port, and the database may
      // already have accepted it.
      if (database && database.connecting) database.once('connect', () => database.destroy());
      else if (database) database.destroy();
      if (timer) (clearTimeout(timer), timers.delete(timer));
      sockets.delete(client);
      if (database) sockets.delete(database);
    };

    // Sends every round trip whose delay is over, in order, one write each:
    // pglite-socket runs the messages of one read one after another with no
    // other connection's in between (database.js says why), so a round trip
    // is never interleaved with another connection's.
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
      const now = performance.now();
      try {
        for (const m of reader.push(chunk)) {
          if (m.type === 'encryption') replies.expectAnswer();
          batch.push(session.read(m, now));
          if (m.type.length > 1 || ROUND_TRIP_ENDS.has(m.type)) {
            queue.push({ at: now + delayMs, bytes: Buffer.concat(batch) });
            batch = [];
          }
        }
      } catch (err) {
        // Not PostgreSQL's protocol: say so the way a server would, and hang up.
        client.end(message('E', [Buffer.from(`SFATAL\0C08P01\0M${err.message}\0\0`)]));
        end();
        return;
      }
      if (!timer) release();
    });
    client.on('error', end);
    client.on('close', end);

    const fromDatabase = (chunk) => {
      client.write(chunk);
      let messages;
      try {
        messages = replies.push(chunk);
      } catch {
        end();
        return;
      }
      const now = performance.now();
      for (const m of messages) {
        const done = session.answer(m);
        if (!done) continue;
        onStatement({ connection: id, at: now, sentAt: done.sentAt, tag: done.tag, command: commandOf(done.tag), kind: done.tag === 'SUSPENDED' || done.tag === 'ERROR' ? 'read' : kindOfTag(done.tag), text: done.sql, index: done.index });
      }
    };

    Promise.resolve(upstream).then(
      ({ host, port: upstreamPort }) => {
        if (client.destroyed) return;
        database = net.connect({ host, port: upstreamPort, noDelay: true });
        sockets.add(database);
        connecting.add(database);
        const made = () => connecting.delete(database);
        database.on('connect', () => {
          upstreamPorts.push(database.localPort);
          made();
          release();
        });
        database.on('data', fromDatabase);
        database.on('error', () => (made(), end()));
        database.on('close', () => (made(), end()));
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
    /** The local port of every connection the proxy has made to the database, in order. */
    upstreamPorts: () => [...upstreamPorts],
    /** Resolves once no connection to the database is still being made (at most 2 s). */
    async settled() {
      const deadline = performance.now() + 2000;
      while (connecting.size && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    },
    close: () =>
      new Promise((resolve) => {
        for (const t of timers) clearTimeout(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

module.exports = { startWire, kindOfTag, commandOf, MessageReader, BackendReader, Session };
