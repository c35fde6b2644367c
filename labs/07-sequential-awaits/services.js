'use strict';
// The three downstream services the dashboard depends on: profile, orders
// and recommendations. Each is a tiny HTTP server that answers
// GET /users/:id after a fixed delay (DOWNSTREAM_DELAY_MS, 40 ms unless
// set), the way a service across the network would. Their data is made up
// but stable: the same user and revision always give the same answer.
//
// You do not need to change this file. app.js calls startServices(), which
// runs the services in a child process of their own (they are other
// programs, so the app's profiles show the app alone) and ends them when
// the app exits. When PROFILE_SERVICE_URL, ORDERS_SERVICE_URL and
// RECOMMENDATIONS_SERVICE_URL are all set, it uses those instead: the
// workbook's check runs its own copies of the services, so it can count the
// calls your app makes.

const http = require('node:http');
const { fork } = require('node:child_process');

const NAMES = ['profile', 'orders', 'recommendations'];
const ENV = { profile: 'PROFILE_SERVICE_URL', orders: 'ORDERS_SERVICE_URL', recommendations: 'RECOMMENDATIONS_SERVICE_URL' };
const PLANS = ['free', 'team', 'enterprise'];
const PRODUCTS = ['desk lamp', 'notebook', 'kettle', 'headphones', 'backpack', 'plant pot', 'mug', 'chair'];

/** What each service answers for user `id` at `revision`. */
const answers = {
  profile: (id, revision) => ({ id, name: `User ${id}`, plan: PLANS[id % PLANS.length], revision }),
  orders: (id, revision) =>
    Array.from({ length: 1 + (id % 3) }, (_, i) => ({
      id: `o-${id}-${revision}-${i + 1}`,
      totalCents: 100 + ((id * 37 + i * 11 + revision * 7) % 9000),
    })),
  recommendations: (id, revision) =>
    [0, 1, 2].map((i) => ({
      product: PRODUCTS[(id + i * 3 + revision) % PRODUCTS.length],
      score: Number((0.9 - i * 0.2).toFixed(1)),
    })),
};

/**
 * Starts the three services in this process.
 * @param {object} options
 * @param {number} options.delayMs how long each answer takes
 * @param {() => number} [options.revision] the data's current revision
 * @param {(name:string, id:number) => void} [options.onRequest] told of every request
 * @param {(name:string, id:number) => 'fail'|'hang'|null} [options.fault] how a service
 *   misbehaves for a request: 'fail' answers 503 after the usual delay, 'hang' never
 *   answers (the way a stuck service holds a connection open), null answers as usual
 * @returns {Promise<{urls:Record<string,string>, close:() => Promise<void>}>}
 */
async function createServices({ delayMs, revision = () => 1, onRequest = () => {}, fault = () => null }) {
  const servers = NAMES.map((name) =>
    http.createServer((req, res) => {
      const match = /^\/users\/(\d{1,9})$/.exec(req.url);
      if (req.method !== 'GET' || !match) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        return;
      }
      const id = Number(match[1]);
      onRequest(name, id);
      const trouble = fault(name, id);
      if (trouble === 'hang') return; // the connection stays open, unanswered, until closed
      const [status, body] = trouble === 'fail' ? [503, '{"error":"unavailable"}'] : [200, JSON.stringify(answers[name](id, revision()))];
      setTimeout(() => res.writeHead(status, { 'content-type': 'application/json' }).end(body), delayMs);
    }),
  );
  await Promise.all(servers.map((server) => new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))));
  const urls = {};
  servers.forEach((server, i) => (urls[NAMES[i]] = `http://127.0.0.1:${server.address().port}`));
  const close = () =>
    Promise.all(
      servers.map((server) => new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      })),
    ).then(() => {});
  return { urls, close };
}

/** The services' base URLs: from the environment, or from services started for this app. */
async function startServices() {
  const given = Object.fromEntries(NAMES.map((name) => [name, process.env[ENV[name]]]));
  if (NAMES.every((name) => given[name])) return given;

  // A plain node for the services: none of the app's flags or profilers.
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = fork(__filename, [], { execArgv: [], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  process.once('exit', () => child.kill());
  const urls = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the downstream services stopped during start-up (exit code ${code})`)));
  });
  child.removeAllListeners('exit');
  // Neither the child nor its channel keeps the app alive: the app exits
  // when its own work is done, and the child follows it.
  child.channel.unref();
  child.unref();
  return urls;
}

if (require.main === module) {
  const delayMs = Number(process.env.DOWNSTREAM_DELAY_MS ?? 40);
  createServices({ delayMs }).then(({ urls }) => {
    if (process.send) {
      // If the app is already gone, so is the reason to run.
      process.send(urls, (err) => err && process.exit(0));
      process.on('disconnect', () => process.exit(0));
    } else {
      console.log(`Each service answers after ${delayMs} ms:`, urls);
    }
  });
}

module.exports = { NAMES, ENV, answers, createServices, startServices };
