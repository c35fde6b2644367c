'use strict';
// Runs lab checks requested from the site one at a time (two checks at once
// would load the same cores and spoil each other's figures) and keeps each
// job's events so a page can follow it live, or catch up after reconnecting.

const { EventEmitter } = require('node:events');
const { randomUUID } = require('node:crypto');
const { runCheck } = require('../checks/run-check');
const { recordCheck } = require('../lib/progress');

class CheckQueue {
  /**
   * @param {object} [options]
   * @param {(lab, options) => Promise<object>} [options.check] injectable for tests
   * @param {(lab) => string} [options.appFor] which file to check for a lab
   *   (default: the learner's labs/<lab>/app.js; tests point it elsewhere)
   */
  constructor({ check = runCheck, appFor = (lab) => lab.app } = {}) {
    this.check = check;
    this.appFor = appFor;
    this.jobs = new Map();
    this.waiting = [];
    this.running = null;
  }

  /** Queues a check of the learner's app for `lab`; returns the job. */
  enqueue(lab) {
    const job = { id: randomUUID(), lab: lab.slug, state: 'queued', events: [], emitter: new EventEmitter() };
    this.jobs.set(job.id, job);
    this.waiting.push({ job, lab });
    this.push(job, { type: 'queued', position: this.waiting.length + (this.running ? 1 : 0) });
    this.next();
    return job;
  }

  push(job, event) {
    job.events.push(event);
    job.emitter.emit('event', event);
  }

  async next() {
    if (this.running || this.waiting.length === 0) return;
    const { job, lab } = this.waiting.shift();
    this.running = job;
    this.waiting.forEach(({ job: queued }, i) => this.push(queued, { type: 'queued', position: i + 2 }));
    job.state = 'running';
    this.push(job, { type: 'started' });
    try {
      const app = this.appFor(lab);
      const result = await this.check(lab, { app, onProgress: (e) => this.push(job, { type: 'progress', ...e }) });
      recordCheck(lab, result, { app });
      job.state = 'done';
      this.push(job, { type: 'result', result });
    } catch (err) {
      job.state = 'failed';
      this.push(job, { type: 'error', message: err.message });
    } finally {
      this.running = null;
      this.forgetOldJobs();
      this.next();
    }
  }

  forgetOldJobs() {
    const finished = [...this.jobs.values()].filter((j) => j.state === 'done' || j.state === 'failed');
    for (const job of finished.slice(0, Math.max(0, finished.length - 20))) this.jobs.delete(job.id);
  }
}

module.exports = { CheckQueue };
