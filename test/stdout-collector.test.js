'use strict';
// The harness's slow log collector (scripts/harness/stdout-collector.js):
// it reads an app's stdout at the rate a check sets, hands over every line
// whole and in order, and keeps the output tail a crash report needs. The
// rate is tested on a stream and a clock of the test's own (nothing here
// measures this machine); the pipe tests only ask what arrived.

const path = require('node:path');
const { PassThrough } = require('node:stream');
const { StdoutCollector } = require('../scripts/harness/stdout-collector');
const { startApp } = require('../scripts/harness/app-process');
const { get, json } = require('../scripts/harness/http-client');
const { killAll } = require('../scripts/harness/children');

const WRITER = path.join(__dirname, 'fixtures', 'log-apps', 'writes-lines.js');
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A stream, a clock the test moves, and a collector reading the one by the other. */
function rig(options = {}) {
  const stream = new PassThrough({ highWaterMark: 64 });
  let ms = 0;
  const lines = [];
  const collector = new StdoutCollector(stream, { onLine: (line) => lines.push(line), now: () => ms, ...options });
  return { stream, lines, collector, advance: (by) => (ms += by) };
}

describe('the stdout collector', () => {
  afterEach(() => jest.useRealTimers());

  test('hands over every line whole, in order, whatever the chunks cut them into', async () => {
    const { stream, lines, collector } = rig();
    stream.write('{"a":1}\n{"b"');
    stream.write(':2}\r\n\n{"c":3}');
    stream.end('\n{"d":4}');
    await collector.until(() => collector.ended, 1000);
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}', '{"d":4}']);
    expect(collector.lines).toBe(4);
    expect(collector.bytes).toBe(Buffer.byteLength('{"a":1}\n{"b":2}\r\n\n{"c":3}\n{"d":4}'));
  });

  test('at rate 0 it reads nothing more until the rate changes', async () => {
    const { stream, lines, collector } = rig();
    collector.setRate(0);
    for (let i = 0; i < 10; i++) stream.write(`line ${i}\n`);
    await tick();
    expect(lines.length).toBeLessThanOrEqual(1);
    collector.release();
    await collector.until(() => lines.length === 10, 1000);
    expect(lines).toEqual(Array.from({ length: 10 }, (_, i) => `line ${i}`));
  });

  test('keeps to its rate: it reads ahead of its budget by one chunk at most, then waits', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'performance'] });
    const { stream, collector, advance } = rig();
    const chunk = 'x'.repeat(99) + '\n';
    collector.setRate(1000); // 1000 bytes a second: ten chunks
    for (let i = 0; i < 50; i++) stream.write(chunk);
    for (let second = 1; second <= 3; second++) {
      for (let step = 0; step < 10; step++) {
        advance(100);
        jest.advanceTimersByTime(100);
        await tick();
        await tick();
      }
      // At most the budget plus the one chunk that ran over it.
      expect(collector.bytes).toBeLessThanOrEqual(second * 1000 + chunk.length);
      expect(collector.bytes).toBeGreaterThanOrEqual(second * 1000 - 2 * chunk.length);
    }
  });

  test('a rate must be a number of bytes a second', () => {
    const { collector } = rig();
    expect(() => collector.setRate(-1)).toThrow(/bytes a second/);
    expect(() => collector.setRate(Number.NaN)).toThrow(/bytes a second/);
  });

  test('until() resolves false on timeout, true once it holds', async () => {
    const { stream, lines, collector } = rig();
    await expect(collector.until(() => lines.length > 0, 20)).resolves.toBe(false);
    const waiting = collector.until(() => lines.length > 0, 1000);
    stream.write('one\n');
    await expect(waiting).resolves.toBe(true);
  });
});

describe('an app whose stdout a collector reads', () => {
  afterAll(() => killAll());

  test('a stalled collector leaves the lines in the app; released, every one arrives; the app cannot tell', async () => {
    const lines = [];
    const app = await startApp(WRITER, { collector: { onLine: (line) => lines.push(line) } });
    try {
      // The listening line arrives, read at full speed until a rate is set.
      await app.stdout.until(() => lines.some((l) => l.startsWith('Listening on')), 5000);
      app.stdout.setRate(0);
      // 4 MB: more than any pipe's buffer and the collector's own hold.
      const res = await get(`${app.url}/write?n=2000&size=2000`);
      expect(json(res).written).toBe(2000);
      const held = lines.length;
      expect(held).toBeLessThan(1000);
      if (process.platform !== 'win32') {
        // POSIX: the pipe is asynchronous, so the writes wait in the app's own memory.
        expect(json(await get(`${app.url}/pending`)).pending).toBeGreaterThan(1_000_000);
      }
      app.stdout.release();
      expect(await app.stdout.until(() => lines.length === 2001, 10_000)).toBe(true);
      const numbers = lines.slice(1).map((l) => JSON.parse(l.slice(0, l.indexOf(' '))).line);
      expect(numbers).toEqual(Array.from({ length: 2000 }, (_, i) => i));
      expect(lines.slice(1).every((l) => l.length === 2000)).toBe(true);
    } finally {
      await app.stop();
    }
  });

  test('the crash report still has the tail of the app\'s output', async () => {
    const app = await startApp(WRITER, { collector: {} });
    try {
      app.stdout.setRate(100_000);
      await get(`${app.url}/write?n=3&size=40`).catch(() => {});
      await get(`${app.url}/crash`).catch(() => {});
      await app.exited;
      expect(() => app.assertAlive('in the test')).toThrow(/crashed/);
      const err = (() => {
        try {
          app.assertAlive('in the test');
        } catch (e) {
          return e;
        }
      })();
      expect(err.detail).toMatch(/the last words of writes-lines\.js/);
    } finally {
      await app.stop();
    }
  });

  test('a stop ends the app even while its collector reads nothing', async () => {
    const app = await startApp(WRITER, { collector: {} });
    app.stdout.setRate(0);
    await get(`${app.url}/write?n=1000&size=2000`);
    const exit = await app.stop();
    expect(exit).toBeTruthy();
  });
});
