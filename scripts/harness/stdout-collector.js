'use strict';
// Reads an app's stdout the way a log collector does, at a rate the check
// sets: as fast as it comes (the default), at most so many bytes a second
// (a collector under pressure), or not at all for a while (a collector
// that stalls). Whatever the rate, the app's stdout stays the pipe it is in
// every mode (`workbook run`, `load`, `profile`): only how fast the harness
// reads from it changes, so the app cannot tell a slow collector from a
// busy terminal. Every complete line is handed to `onLine`, in order; the
// harness's own output tail (for crash reports) is fed as before.
//
// How the rate is kept: the stream is read in flowing mode and paused as
// soon as the bytes read run ahead of the budget (bytesPerSecond × the time
// since the rate was set), then resumed when the budget has caught up. A
// paused stream stops reading its pipe once its own buffer is full
// (Readable's highWaterMark), so the pipe fills and the app's writes no
// longer complete: on POSIX the app's stdout queues them in its own memory
// (an asynchronous pipe), on Windows its writes block (a synchronous one),
// as Node's "A note on process I/O" describes. Nothing here depends on the
// platform: it only reads more slowly.

const { lineSplitter } = require('./output-tail');

class StdoutCollector {
  /**
   * @param {import('node:stream').Readable} stream the app's stdout
   * @param {object} [options]
   * @param {(line:string) => void} [options.onLine] each complete line (without its line ending)
   * @param {(chunk:Buffer) => void} [options.onChunk] each chunk read (e.g. the output tail)
   * @param {() => number} [options.now] a clock in ms (tests)
   */
  constructor(stream, { onLine = () => {}, onChunk = () => {}, now = () => performance.now() } = {}) {
    this.stream = stream;
    this.now = now;
    this.bytes = 0;
    this.lines = 0;
    this.ended = false;
    this.rate = Infinity;
    this.budgetFrom = { at: now(), bytes: 0 };
    this.timer = null;
    this.waiters = [];
    const splitter = lineSplitter((line) => {
      this.lines++;
      onLine(line);
    });
    this.splitter = splitter;
    stream.on('data', (chunk) => {
      this.bytes += chunk.length;
      onChunk(chunk);
      splitter.push(chunk);
      this.throttle();
      this.notify();
    });
    stream.once('end', () => {
      splitter.flush();
      this.ended = true;
      this.notify();
    });
    stream.once('close', () => {
      this.ended = true;
      this.notify();
    });
  }

  /**
   * Reads at most `bytesPerSecond` from now on (Infinity: as fast as the
   * app writes; 0: nothing until the rate changes). The budget starts
   * afresh: bytes read before do not count against it.
   */
  setRate(bytesPerSecond) {
    if (!(bytesPerSecond >= 0)) throw new TypeError(`A collector's rate is a number of bytes a second ≥ 0, not ${bytesPerSecond}.`);
    this.rate = bytesPerSecond;
    this.budgetFrom = { at: this.now(), bytes: this.bytes };
    clearTimeout(this.timer);
    this.timer = null;
    if (!this.ended) this.stream.resume();
    this.throttle();
  }

  /** Bytes the current rate allows to have been read by now, beyond those read when it was set. */
  allowance() {
    if (this.rate === Infinity) return Infinity;
    return ((this.now() - this.budgetFrom.at) / 1000) * this.rate;
  }

  throttle() {
    if (this.rate === Infinity || this.ended) return;
    const ahead = this.bytes - this.budgetFrom.bytes - this.allowance();
    if (ahead < 0) return;
    this.stream.pause();
    if (this.timer || this.rate === 0) return;
    // Resume once the budget has caught up with what was read (at least a few ms later).
    const waitMs = Math.max(5, (ahead / this.rate) * 1000);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.ended) return;
      this.stream.resume();
    }, waitMs);
    this.timer.unref();
  }

  /**
   * Resolves when `predicate()` holds (checked after each chunk), or when
   * the stream has ended, or after `timeoutMs`; with whether it held.
   */
  until(predicate, timeoutMs) {
    if (predicate()) return Promise.resolve(true);
    if (this.ended) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = { predicate, resolve };
      waiter.timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(predicate());
      }, timeoutMs);
      waiter.timer.unref();
      this.waiters.push(waiter);
    });
  }

  notify() {
    for (const waiter of [...this.waiters]) {
      const held = waiter.predicate();
      if (held || this.ended) {
        clearTimeout(waiter.timer);
        this.waiters = this.waiters.filter((w) => w !== waiter);
        waiter.resolve(held);
      }
    }
  }

  /** Stops throttling for good: the harness reads everything from here (e.g. when the app is stopped). */
  release() {
    this.setRate(Infinity);
  }
}

module.exports = { StdoutCollector };
