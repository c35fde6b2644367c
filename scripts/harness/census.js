'use strict';
// The harness's half of the census: a server on 127.0.0.1 that every
// thread of every Node process started for one app joins (see
// census-member.js, loaded by the probe). measure() asks each of them to
// collect its garbage and report its memory, and adds them up, so a check
// judges the memory of the whole app: the main thread's heap, every worker
// thread's heap, Buffers and ArrayBuffers, in the app's process and in any
// Node process it started. cpu() adds up the CPU time of every process of
// the app the same way. The app's own main thread's connection is also the
// harness's control channel to the probe (ask(), and the 'listening'
// report): no IPC channel an app could notice.

const net = require('node:net');
const crypto = require('node:crypto');
const { ENV_KEY } = require('./census-member');

/**
 * @returns {Promise<Census>} listening; `env` holds what the app's environment needs
 */
async function createCensus() {
  const census = new Census();
  await census.listen();
  return census;
}

class Census {
  constructor() {
    this.token = crypto.randomBytes(8).toString('hex');
    this.members = new Set();
    this.nextId = 1;
    // The app's own main thread, once it has said hello; and what waits for it.
    this.target = null;
    this.targetWaiters = [];
    this.onTargetMessage = () => {};
    // The last CPU time each process reported (µs), kept after it ends.
    this.cpuByPid = new Map();
    // Whether the members' allocation meters run: one that joins later starts its own at once.
    this.metering = false;
    this.server = net.createServer((socket) => this.accept(socket));
    // A census must never keep the harness alive.
    this.server.unref();
  }

  listen() {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
  }

  /** The environment variables an app needs to join this census. */
  get env() {
    return { [ENV_KEY]: `${this.server.address().port}:${this.token}` };
  }

  accept(socket) {
    socket.unref();
    socket.setNoDelay(true);
    socket.on('error', () => {});
    const member = { socket, hello: null, pending: new Map() };
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf('\n')) !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        let message;
        try {
          message = JSON.parse(line);
        } catch {
          continue;
        }
        if (message.type === 'hello') {
          if (message.token !== this.token) return socket.destroy(); // not one of ours
          member.hello = message;
          this.members.add(member);
          if (this.metering) socket.write(`${JSON.stringify({ type: 'allocation:start' })}\n`);
          if (message.isTarget && !this.target) {
            this.target = member;
            for (const resolve of this.targetWaiters.splice(0)) resolve(member);
          }
        } else if (!member.hello) {
          continue; // a stranger's first words must be its hello
        } else if ((message.type === 'memory' || message.type === 'cpu' || message.type === 'allocation' || message.type === 'calls') && member.pending.has(message.id)) {
          member.pending.get(message.id)(message);
          member.pending.delete(message.id);
        } else if (message.type === 'tick' && member.hello.isMainThread) {
          this.noteCpu(member, message.cpu);
        } else if (member === this.target) {
          this.onTargetMessage(message);
        }
      }
    });
    socket.on('close', () => {
      this.members.delete(member);
      for (const resolve of member.pending.values()) resolve(null);
      member.pending.clear();
      if (member === this.target) this.onTargetMessage({ type: 'closed' });
    });
  }

  noteCpu(member, cpu) {
    if (!cpu || !Number.isFinite(cpu.total)) return;
    const known = this.cpuByPid.get(member.hello.pid);
    // CPU time only grows: a reply that overtook a tick must not lower it.
    if (!known || cpu.total >= known.total) this.cpuByPid.set(member.hello.pid, { ...cpu, isTarget: member.hello.isTarget });
  }

  /** Resolves with the app's main thread once it has joined (or null after `timeoutMs`). */
  waitForTarget(timeoutMs) {
    if (this.target) return Promise.resolve(this.target);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), timeoutMs);
      this.targetWaiters.push((member) => {
        clearTimeout(timer);
        resolve(member);
      });
    });
  }

  /** Sends a message to the app's main thread; false when it is not (or no longer) connected. */
  sendToTarget(message) {
    if (!this.target || this.target.socket.destroyed) return false;
    this.target.socket.write(`${JSON.stringify(message)}\n`);
    return true;
  }

  /** Asks every member (or the main threads only) one question; null for each that did not answer. */
  askAll(type, { timeoutMs, mainThreadsOnly = false, extra = {} }) {
    const id = this.nextId++;
    const members = [...this.members].filter((m) => !mainThreadsOnly || m.hello.isMainThread);
    return Promise.all(
      members.map(
        (member) =>
          new Promise((resolve) => {
            const timer = setTimeout(() => {
              member.pending.delete(id);
              resolve(null);
            }, timeoutMs);
            member.pending.set(id, (reply) => {
              clearTimeout(timer);
              resolve(reply);
            });
            member.socket.write(`${JSON.stringify({ type, id, ...extra })}\n`);
          }),
      ),
    ).then((replies) => members.map((member, i) => ({ member, reply: replies[i] })));
  }

  /**
   * The CPU time (µs, user + system, every thread) of every process of the
   * app: the app's own and every Node process it started, including those
   * that have ended since (up to their last report, at most 200 ms before
   * they ended). `own` is the app's process alone.
   * @returns {Promise<{total:number, own:number, processes:number, silent:number}>}
   */
  async cpu({ timeoutMs = 2000 } = {}) {
    const answers = await this.askAll('cpu', { timeoutMs, mainThreadsOnly: true });
    for (const { member, reply } of answers) if (reply) this.noteCpu(member, reply.cpu);
    let total = 0;
    let own = 0;
    for (const cpu of this.cpuByPid.values()) {
      total += cpu.total;
      if (cpu.isTarget) own += cpu.total;
    }
    return { total, own, processes: this.cpuByPid.size, silent: answers.filter((a) => !a.reply).length };
  }

  /**
   * Every thread's allocation so far: the bytes its V8 heap allocated since
   * the first call (which starts every member's meter, see
   * allocation-meter.js), its collections and their pauses. Two readings
   * give what the whole app allocated in between (allocationBetween()).
   * @returns {Promise<{members:Array<{key:string, pid:number, threadId:number, isMainThread:boolean,
   *   isTarget:boolean, totals:object|null}>, silent:number, unsupported:number}>}
   */
  async allocation({ timeoutMs = 10_000 } = {}) {
    const start = !this.metering;
    this.metering = true;
    const answers = await this.askAll('allocation', { timeoutMs, extra: { start } });
    const members = answers
      .filter(({ reply }) => reply)
      .map(({ member, reply }) => ({
        key: `${member.hello.pid}:${member.hello.threadId}`,
        pid: member.hello.pid,
        threadId: member.hello.threadId,
        isMainThread: member.hello.isMainThread,
        isTarget: member.hello.isTarget,
        totals: reply.totals,
      }));
    return {
      members,
      silent: answers.filter(({ reply }) => !reply).length,
      unsupported: answers.filter(({ reply }) => reply && reply.unsupported).length,
    };
  }

  /**
   * The calls every thread of every live process of the app has made so
   * far to the function the check counts (call-counter.js), added up;
   * `silent`: threads that did not answer.
   * @returns {Promise<{calls:number, silent:number}>}
   */
  async calls({ timeoutMs = 2000, joinMs = 1000 } = {}) {
    // As in measure(): a thread or process the app has just started may not
    // have joined yet, and its calls would be missing from the sum.
    for (const deadline = Date.now() + joinMs; ; ) {
      const answers = await this.askAll('calls', { timeoutMs });
      const { workersMissing, strays } = notJoined(answers.map(({ member, reply }) => ({ ...member.hello, reply })));
      if ((!workersMissing && !strays.length) || Date.now() >= deadline) {
        return {
          calls: answers.reduce((sum, { reply }) => sum + (reply && Number.isFinite(reply.calls) ? reply.calls : 0), 0),
          silent: answers.filter((a) => !a.reply).length,
        };
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * Every thread's memory, after a forced full GC in each (unless gc is
   * false), and the totals.
   * @param {{gc?:boolean, timeoutMs?:number}} [options]
   * @returns {Promise<CensusReading>}
   */
  async measure({ gc = true, timeoutMs = 10_000, joinMs = 1000 } = {}) {
    let reading;
    // A process the app has just started may not have joined yet: it is
    // waited for (up to joinMs), then named in `missing` if it never does.
    for (const deadline = Date.now() + joinMs; ; ) {
      const answers = await this.askAll('measure', { timeoutMs, extra: { gc } });
      for (const { member, reply } of answers) if (reply && reply.cpu) this.noteCpu(member, reply.cpu);
      reading = summarise(answers.map(({ member, reply }) => ({ ...member.hello, reply })));
      if (!reading.strays.length || Date.now() >= deadline) return reading;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  close() {
    for (const member of this.members) member.socket.destroy();
    this.members.clear();
    if (!this.server.listening) return Promise.resolve();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * @typedef {object} CensusReading
 * @property {number} heapUsed   bytes of V8 heap in use, every thread of every process
 * @property {number} external   bytes outside the V8 heaps held by JavaScript objects
 *   (Buffers and ArrayBuffers included), every thread of every process
 * @property {number} arrayBuffers bytes of Buffers and ArrayBuffers (part of external)
 * @property {number} total      heapUsed + external: what the app's JavaScript keeps alive
 * @property {number} code       V8's compiled code and bytecode, with their metadata (part of heapUsed)
 * @property {number} data       total without code: the data the app keeps, what memory gates judge
 * @property {number} rss        resident memory of every process (the OS's view, a cross-check)
 * @property {number} threads    threads that answered (the app's main thread counts as one)
 * @property {number} processes  processes that answered
 * @property {string[]} missing  plain sentences about threads or processes that did not answer
 * @property {number[]} strays pids of processes the app started that have not joined
 * @property {boolean} targetAnswered whether the app's own main thread answered: a reading
 *   without it is no reading of the app at all (AppHandle.memory() refuses it)
 * @property {object[]} members  each thread's own figures
 */
/**
 * The threads and processes the app started that have not joined the
 * census: each member counts the workers it started and lists the child
 * processes it spawned, and every one must be a member too.
 * @returns {{workersMissing:number, strays:number[]}}
 */
function notJoined(members) {
  const answered = members.filter((m) => m.reply);
  const workersExpected = answered.reduce((n, m) => n + m.reply.workers, 0);
  const workersSeen = members.filter((m) => !m.isMainThread).length;
  const pids = new Set(members.filter((m) => m.isMainThread).map((m) => m.pid));
  return {
    workersMissing: Math.max(0, workersExpected - workersSeen),
    strays: answered.flatMap((m) => m.reply.children).filter((pid) => !pids.has(pid)),
  };
}

function summarise(members) {
  const answered = members.filter((m) => m.reply);
  const missing = [];
  const silent = members.filter((m) => !m.reply);
  if (silent.length) {
    missing.push(`${silent.length} thread${silent.length === 1 ? '' : 's'} did not answer within the time allowed (${silent.map(describe).join(', ')}): a thread busy for seconds cannot be measured`);
  }
  const { workersMissing, strays } = notJoined(members);
  if (workersMissing) {
    missing.push(`${workersMissing} worker thread${workersMissing === 1 ? '' : 's'} the app started never reported its memory`);
  }
  if (strays.length) {
    missing.push(`${strays.length} process${strays.length === 1 ? '' : 'es'} the app started (pid ${strays.join(', ')}) did not report its memory: keep the app's data in the app's own processes, or start them as Node.js processes with the environment the app was given`);
  }
  const sum = (key, list = answered) => list.reduce((n, m) => n + m.reply[key], 0);
  // rss is per process: take it once, from each process's main thread.
  const mains = answered.filter((m) => m.isMainThread);
  const heapUsed = sum('heapUsed');
  const external = sum('external');
  // V8's compiled code and its metadata (bytecode, optimized code,
  // deoptimization data): it grows while the JIT warms up and is thrown
  // away and rebuilt after forced collections ("weak objects" deopts), by
  // tens of KB at a time. It is not data the app keeps.
  const code = answered.reduce((n, m) => n + m.reply.code.code_and_metadata_size + m.reply.code.bytecode_and_metadata_size, 0);
  return {
    targetAnswered: answered.some((m) => m.isTarget),
    strays,
    heapUsed,
    external,
    arrayBuffers: sum('arrayBuffers'),
    total: heapUsed + external,
    code,
    data: heapUsed + external - code,
    rss: sum('rss', mains),
    threads: answered.length,
    processes: mains.length,
    missing,
    members: answered.map((m) => ({
      pid: m.pid,
      threadId: m.threadId,
      isMainThread: m.isMainThread,
      isTarget: m.isTarget,
      heapUsed: m.reply.heapUsed,
      external: m.reply.external,
      arrayBuffers: m.reply.arrayBuffers,
      spaces: m.reply.spaces,
      code: m.reply.code,
    })),
  };
}

function describe(member) {
  return member.isMainThread ? `process ${member.pid}` : `worker ${member.threadId} of process ${member.pid}`;
}

module.exports = { createCensus, summarise };
