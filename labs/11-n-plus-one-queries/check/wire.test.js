'use strict';
// wire.js read without a database: what it counts comes from the server's
// replies, matched to the SQL the app sent, and every connection it makes to
// the database is known by its port. A fake server answers with canned
// protocol messages; nothing here is timed.

const net = require('node:net');
const { startWire, kindOfTag, commandOf, BackendReader, Session, MessageReader } = require('../wire');

const int32 = (n) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const msg = (type, body = Buffer.alloc(0)) => Buffer.concat([Buffer.from(type), int32(4 + body.length), body]);
const cstr = (s) => Buffer.from(`${s}\0`);
const query = (sql) => msg('Q', cstr(sql));
const complete = (tag) => msg('C', cstr(tag));
const ready = () => msg('Z', Buffer.from('I'));
const error = (text) => msg('E', Buffer.concat([Buffer.from('SERROR\0'), Buffer.from(`M${text}\0`), Buffer.from('\0')]));

function startupMessage() {
  const body = Buffer.concat([int32(196608), cstr('user'), cstr('postgres'), Buffer.from('\0')]);
  return Buffer.concat([int32(4 + body.length), body]);
}

describe('wire.js: what the database said', () => {
  test('command tags: control, change, read', () => {
    expect(commandOf('INSERT 0 1')).toBe('INSERT');
    expect(commandOf('SELECT 20')).toBe('SELECT');
    expect(commandOf('CREATE FUNCTION')).toBe('CREATE FUNCTION');
    for (const tag of ['BEGIN', 'COMMIT', 'ROLLBACK', 'SET', 'SHOW', 'PREPARE', 'DEALLOCATE ALL', 'DECLARE CURSOR', 'CLOSE CURSOR']) expect(kindOfTag(tag)).toBe('control');
    for (const tag of ['INSERT 0 1', 'UPDATE 3', 'DELETE 0', 'MERGE 2', 'CREATE FUNCTION', 'CREATE TABLE', 'DROP TABLE', 'TRUNCATE TABLE', 'ALTER SYSTEM', 'LOCK TABLE', 'CALL']) expect(kindOfTag(tag)).toBe('change');
    // A tag can hide a change (SELECT … INTO, setval()): the check's transaction ids see those.
    for (const tag of ['SELECT 20', 'SELECT 0', 'FETCH 5', 'MOVE 1', 'COPY 12', 'EXPLAIN', 'DO', 'VALUES 2']) expect(kindOfTag(tag)).toBe('read');
  });

  test("the server's stream splits into messages, with the one-byte answer to an SSL request", () => {
    const reader = new BackendReader();
    reader.expectAnswer();
    const stream = Buffer.concat([Buffer.from('N'), complete('SELECT 1'), ready()]);
    // Split anywhere: a message that arrives in pieces is whole only once it is all there.
    const first = reader.push(stream.subarray(0, 4));
    const rest = reader.push(stream.subarray(4));
    expect([...first, ...rest].map((m) => m.type)).toEqual(['encryption-answer', 'C', 'Z']);
  });

  test('each answer is matched with the SQL it came from: Executes, simple queries of several statements, errors', () => {
    const session = new Session('t_');
    const parse = (name, sql) => msg('P', Buffer.concat([cstr(name), cstr(sql), Buffer.from([0, 0])]));
    const bind = (portal, name) => msg('B', Buffer.concat([cstr(portal), cstr(name), Buffer.from([0, 0, 0, 0, 0, 0])]));
    const execute = (portal) => msg('E', Buffer.concat([cstr(portal), int32(0)]));
    const sync = msg('S');
    const read = (raw) => session.read({ type: String.fromCharCode(raw[0]), raw });
    const answer = (raw) => session.answer({ type: String.fromCharCode(raw[0]), body: raw.subarray(5) });

    // pg's extended query: Parse, Bind, Describe, Execute, Sync.
    [parse('', 'SELECT * FROM orders'), bind('', ''), execute(''), sync].forEach(read);
    expect(answer(complete('SELECT 20'))).toMatchObject({ tag: 'SELECT 20', sql: 'SELECT * FROM orders' });
    expect(answer(ready())).toBeNull();

    // One simple Query holding three statements: three answers, one SQL text.
    read(query('SELECT 1; SELECT 2 --\r; SELECT 3'));
    const three = [answer(complete('SELECT 1')), answer(complete('SELECT 1')), answer(complete('SELECT 1'))];
    expect(three.map((a) => a.index)).toEqual([1, 2, 3]);
    expect(three.every((a) => a.sql === 'SELECT 1; SELECT 2 --\r; SELECT 3')).toBe(true);
    answer(ready());

    // An error is a statement too (a query can carry data out in its message);
    // the Executes the server skips after it are not.
    [parse('', 'SELECT 1/0'), bind('', ''), execute(''), sync, parse('a', 'SELECT 2'), bind('', 'a'), execute(''), sync].forEach(read);
    expect(answer(error('division by zero'))).toMatchObject({ tag: 'ERROR', sql: 'SELECT 1/0' });
    expect(answer(ready())).toBeNull();
    expect(answer(complete('SELECT 1'))).toMatchObject({ sql: 'SELECT 2' });
    answer(ready());
    expect(session.owed).toEqual([]);
  });

  test('a named statement is renamed for the shared session, and its SQL kept', () => {
    const session = new Session('wire7_');
    const raw = msg('P', Buffer.concat([cstr('items'), cstr('SELECT 1'), Buffer.from([0, 0])]));
    const forwarded = session.read({ type: 'P', raw });
    expect(forwarded.toString('latin1')).toContain('wire7_items\0SELECT 1\0');
  });

  test('a client that is not PostgreSQL is refused', () => {
    expect(() => new MessageReader().push(Buffer.from('GET / HTTP/1.1\r\n\r\n'))).toThrow(/not a PostgreSQL startup message/);
  });
});

describe('wire.js between a client and a fake database', () => {
  let fake;
  let wire;
  const accepted = [];
  beforeAll(async () => {
    // Answers every Query with one CommandComplete per ';'-separated piece, then ReadyForQuery.
    fake = net.createServer((socket) => {
      accepted.push(socket.remotePort);
      let started = false;
      let pending = Buffer.alloc(0);
      socket.on('data', (chunk) => {
        pending = Buffer.concat([pending, chunk]);
        if (!started) {
          const length = pending.readInt32BE(0);
          pending = pending.subarray(length);
          started = true;
          socket.write(Buffer.concat([msg('R', int32(0)), ready()]));
        }
        while (pending.length >= 5 && pending.length >= 1 + pending.readInt32BE(1)) {
          const length = pending.readInt32BE(1);
          if (pending[0] === 'Q'.charCodeAt(0)) {
            const sql = pending.toString('utf8', 5, length).replace(/\0$/, '');
            const tags = sql.split(';').map((part) => (/^\s*insert/i.test(part) ? 'INSERT 0 1' : /^\s*begin/i.test(part) ? 'BEGIN' : 'SELECT 1'));
            socket.write(Buffer.concat([...tags.map(complete), ready()]));
          }
          pending = pending.subarray(1 + length);
        }
      });
    });
    await new Promise((resolve) => fake.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    if (wire) await wire.close();
    await new Promise((resolve) => fake.close(resolve));
  });

  test('reports each statement as its answer comes back, and knows the port of each connection it made', async () => {
    const seen = [];
    wire = await startWire({ upstream: { host: '127.0.0.1', port: fake.address().port }, onStatement: (s) => seen.push(s) });
    const client = net.connect({ host: '127.0.0.1', port: wire.port });
    const replies = new BackendReader();
    const got = [];
    client.on('data', (chunk) => got.push(...replies.push(chunk)));
    const waitFor = async (n) => {
      while (got.filter((m) => m.type === 'Z').length < n) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    client.write(startupMessage());
    await waitFor(1);
    client.write(query('BEGIN; SELECT 1; INSERT INTO t VALUES (1)'));
    await waitFor(2);
    expect(seen.map((s) => [s.tag, s.kind, s.index])).toEqual([
      ['BEGIN', 'control', 1],
      ['SELECT 1', 'read', 2],
      ['INSERT 0 1', 'change', 3],
    ]);
    expect(seen.every((s) => s.at >= s.sentAt && s.connection === seen[0].connection)).toBe(true);
    await wire.settled();
    expect(wire.upstreamPorts()).toEqual(accepted);
    expect(wire.connections()).toBe(1);
    client.destroy();
  });
});
