'use strict';
// A client of the Chrome DevTools Protocol, the inspector's protocol, for
// a Node process other than ours: what DevTools and `node inspect` speak
// over the WebSocket a process opens with --inspect, or later with
// SIGUSR1 / process._debugProcess(pid). Messages are JSON: {id, method,
// params} out, {id, result|error} back, and events {method, params}.
//
// The WebSocket is Node's own (global from Node 22); on Node 20 it is
// behind --experimental-websocket, so there undici's (the same code, and a
// dependency of the workbook's tests) stands in.

const { EventEmitter, once } = require('node:events');

/** The WebSocket class of this Node, or null with why there is none. */
function webSocketClass() {
  if (typeof globalThis.WebSocket === 'function') return { WebSocket: globalThis.WebSocket };
  try {
    return { WebSocket: require('undici').WebSocket };
  } catch {
    return { WebSocket: null, why: `this Node (${process.version}) has no WebSocket client without --experimental-websocket, and the undici package is not installed (npm ci installs it)` };
  }
}

/** The inspector's WebSocket address in what a process printed when its inspector opened. */
function inspectorUrl(output) {
  const m = /Debugger listening on (ws:\/\/\S+)/.exec(String(output));
  return m ? m[1] : null;
}

class InspectorClient extends EventEmitter {
  /**
   * @param {string} url the ws:// address the process printed
   * @param {{timeoutMs?: number}} [options] how long any one command may take
   */
  static async connect(url, { timeoutMs = 10_000 } = {}) {
    const { WebSocket, why } = webSocketClass();
    if (!WebSocket) throw new Error(why);
    const client = new InspectorClient(new WebSocket(url), timeoutMs);
    await Promise.race([
      once(client, 'open'),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`no connection to ${url} within ${timeoutMs / 1000} s`)), timeoutMs).unref()),
    ]);
    return client;
  }

  constructor(socket, timeoutMs) {
    super();
    this.socket = socket;
    this.timeoutMs = timeoutMs;
    this.nextId = 1;
    this.pending = new Map();
    this.closed = false;
    socket.addEventListener('open', () => this.emit('open'));
    socket.addEventListener('message', (event) => this.onMessage(event.data));
    socket.addEventListener('error', (event) => this.fail(new Error(`the inspector's connection failed${event?.message ? `: ${event.message}` : ''}`)));
    socket.addEventListener('close', () => this.fail(new Error('the inspector closed its connection')));
  }

  onMessage(data) {
    let message;
    try {
      message = JSON.parse(String(data));
    } catch {
      return;
    }
    if (message.id !== undefined && this.pending.has(message.id)) {
      const { resolve, reject, timer, method } = this.pending.get(message.id);
      this.pending.delete(message.id);
      clearTimeout(timer);
      if (message.error) reject(new Error(`${method}: ${message.error.message}`));
      else resolve(message.result || {});
    } else if (message.method) {
      this.emit(message.method, message.params || {});
    }
  }

  fail(err) {
    if (this.closed) return;
    this.closed = true;
    for (const { reject, timer } of this.pending.values()) {
      clearTimeout(timer);
      reject(err);
    }
    this.pending.clear();
    this.emit('closed', err);
  }

  /** Sends a command; resolves with its result. */
  send(method, params = {}) {
    if (this.closed) return Promise.reject(new Error(`${method}: the inspector's connection is closed`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: no answer from the inspector within ${this.timeoutMs / 1000} s`));
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer, method });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Resolves with the next event `method`'s params (rejects after the command timeout). */
  next(method) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off(method, onEvent);
        reject(new Error(`no ${method} from the inspector within ${this.timeoutMs / 1000} s`));
      }, this.timeoutMs);
      const onEvent = (params) => {
        clearTimeout(timer);
        resolve(params);
      };
      this.once(method, onEvent);
    });
  }

  close() {
    this.closed = true;
    for (const { timer } of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    try {
      this.socket.close();
    } catch {
      // already closed
    }
  }
}

module.exports = { InspectorClient, inspectorUrl, webSocketClass };
