'use strict';
// One more connection in a load, of the same kind as the others, that keeps
// what the app answered: status, headers and the body's bytes. A check then
// compares these answers, served while the app was busy, with what the
// lesson's contract says they must be, so a "fix" that does less work when
// busy (a cheaper compression, fewer items, a placeholder) is caught.
// (autocannon decodes bodies as text and keeps only what verifyBody checks,
// so a binary body, like a Brotli file, cannot be checked through it.)

const http = require('node:http');

/**
 * Sends requests one after another on one kept-alive connection until
 * stopped, keeping up to `keep` answers.
 * @param {string} baseUrl
 * @param {object} options
 * @param {(i:number) => string} options.path the i-th request's path
 * @param {string} [options.method='GET']
 * @param {(i:number) => Buffer|string|undefined} [options.body]
 * @param {object} [options.headers]
 * @param {number} [options.keep=100]
 * @returns {{stop: () => Promise<{sent:number, errors:string[], answers:Array<{path:string,
 *   status:number, headers:object, body:Buffer, ms:number}>}>}}
 */
function startSampler(baseUrl, { path, method = 'GET', body, headers = {}, keep = 100 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const answers = [];
  const errors = [];
  let sent = 0;
  let stopping = false;
  let current = null;

  const once = (i) =>
    new Promise((resolve) => {
      const at = path(i);
      const payload = body ? body(i) : undefined;
      const started = process.hrtime.bigint();
      const req = http.request(
        baseUrl + at,
        { method, agent, headers: payload === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(payload) } },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            if (answers.length < keep) {
              answers.push({ path: at, status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), ms: Number(process.hrtime.bigint() - started) / 1e6 });
            }
            resolve();
          });
          res.on('error', (err) => (errors.push(err.message), resolve()));
        },
      );
      current = req;
      req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')));
      req.on('error', (err) => {
        if (!stopping) errors.push(err.message);
        resolve();
      });
      req.end(payload);
    });

  const loop = (async () => {
    while (!stopping) await once(sent++);
  })();

  return {
    /** Stops after the request in flight is answered (at most 5 s), and returns what was kept. */
    async stop() {
      stopping = true;
      let timer;
      await Promise.race([loop, new Promise((resolve) => (timer = setTimeout(resolve, 5000)))]);
      clearTimeout(timer);
      if (current) current.destroy();
      agent.destroy();
      return { sent, errors, answers };
    },
  };
}

module.exports = { startSampler };
