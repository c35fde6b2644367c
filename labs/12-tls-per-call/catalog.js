'use strict';
// The catalogue service the storefront's backend calls: an internal HTTPS
// service that answers GET /v1/products/:id with a product's record. Like
// most internal services, its certificate is not signed by a public
// certificate authority (CA) but by the company's own, so a client must be
// told to trust that CA. Its data is made up but stable: the same product
// and revision always give the same record.
//
// You do not need to change this file. app.js calls startCatalog(), which
// makes a CA and a certificate for the catalogue (new ones on every start,
// valid for a day, kept in memory only), runs the catalogue in a child
// process of its own (another program: the app's profiles show the app
// alone) and ends it when the app exits. When CATALOG_URL and CATALOG_CA
// (the CA's certificate, PEM) are both set, it uses those instead: the
// workbook's check runs its own catalogue, so it can count the connections
// and calls your app makes.

const https = require('node:https');
const { fork } = require('node:child_process');
const selfsigned = require('selfsigned');

/** Product ids the catalogue knows: 1 to MAX_ID. Others are 404. */
const MAX_ID = 100_000;
const KINDS = ['desk lamp', 'notebook', 'kettle', 'headphones', 'backpack', 'plant pot', 'mug', 'chair', 'bookshelf', 'rug'];
const COLOURS = ['black', 'white', 'oak', 'sage', 'rust', 'navy', 'sand'];

/**
 * The catalogue's record of product `id` at data revision `revision`, or
 * null when there is no such product. Prices and stock change from one
 * revision to the next.
 */
function product(id, revision) {
  if (!Number.isInteger(id) || id < 1 || id > MAX_ID) return null;
  return {
    id,
    sku: `SKU-${String(id).padStart(6, '0')}`,
    name: `${KINDS[id % KINDS.length]}, ${COLOURS[(id >> 3) % COLOURS.length]}`,
    priceCents: 499 + ((id * 7919 + revision * 104_729) % 25_000),
    currency: 'EUR',
    stock: (id * 31 + revision * 17) % 23, // 0: out of stock
    warehouse: ['AMS-1', 'FRA-2', 'DUB-1'][id % 3],
    revision,
  };
}

/** A day from an hour ago: no clock skew between processes can make it "not yet valid". */
function validity() {
  const from = new Date(Date.now() - 3_600_000);
  return { notBeforeDate: from, notAfterDate: new Date(from.getTime() + 86_400_000), keyType: 'ec', curve: 'P-256', algorithm: 'sha256' };
}

/**
 * A certificate authority of our own: a self-signed CA certificate and its
 * key (ECDSA P-256), as PEM.
 * @returns {Promise<{cert:string, key:string}>}
 */
async function makeAuthority(commonName = 'Example Shop internal CA') {
  const pems = await selfsigned.generate([{ name: 'commonName', value: commonName }], {
    ...validity(),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/**
 * A server certificate signed by `authority`, for the given IP addresses and
 * DNS names (what a client checks against the address it connected to).
 * @returns {Promise<{cert:string, key:string}>}
 */
async function makeServerCertificate(authority, { ips = ['127.0.0.1'], names = ['localhost'] } = {}) {
  const pems = await selfsigned.generate([{ name: 'commonName', value: names[0] || ips[0] }], {
    ...validity(),
    ca: { key: authority.key, cert: authority.cert },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [...ips.map((ip) => ({ type: 7, ip })), ...names.map((value) => ({ type: 2, value }))] },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/**
 * Starts the catalogue in this process.
 * @param {object} options
 * @param {{cert:string, key:string}} options.certificate its certificate and key
 * @param {number|(() => number)} [options.delayMs=0] how long each answer takes
 * @param {() => number} [options.revision] the data's current revision
 * @param {(id:number) => void} [options.onRequest] told of every product request
 * @returns {Promise<{url:string, server:import('node:https').Server, close:() => Promise<void>}>}
 */
async function createCatalog({ certificate, delayMs = 0, revision = () => 1, onRequest = () => {} }) {
  const delay = typeof delayMs === 'function' ? delayMs : () => delayMs;
  const server = https.createServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
    const match = /^\/v1\/products\/(\d{1,9})$/.exec(req.url);
    if (req.method !== 'GET' || !match) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const id = Number(match[1]);
    onRequest(id);
    const record = product(id, revision());
    const send = () =>
      record
        ? res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(record))
        : res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no such product"}');
    const ms = delay();
    if (ms > 0) setTimeout(send, ms);
    else send();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${server.address().port}`;
  const close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { url, server, close };
}

/** The catalogue's URL and the CA to trust for it: from the environment, or from a catalogue started for this app. */
async function startCatalog() {
  const { CATALOG_URL: url, CATALOG_CA: ca } = process.env;
  if (url && ca) return { url, ca };

  // A plain node for the catalogue: none of the app's flags or profilers.
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = fork(__filename, [], { execArgv: [], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  process.once('exit', () => child.kill());
  const started = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the catalogue stopped during start-up (exit code ${code})`)));
  });
  child.removeAllListeners('exit');
  // Neither the child nor its channel keeps the app alive: the app exits
  // when its own work is done, and the child follows it.
  child.channel.unref();
  child.unref();
  return started;
}

if (require.main === module) {
  const delayMs = Number(process.env.CATALOG_DELAY_MS ?? 0);
  (async () => {
    const authority = await makeAuthority();
    const certificate = await makeServerCertificate(authority);
    const { url } = await createCatalog({ certificate, delayMs });
    if (process.send) {
      // If the app is already gone, so is the reason to run.
      process.send({ url, ca: authority.cert }, (err) => err && process.exit(0));
      process.on('disconnect', () => process.exit(0));
    } else {
      console.log(`The catalogue listens on ${url}; its CA's certificate:\n${authority.cert}`);
    }
  })();
}

module.exports = { MAX_ID, product, makeAuthority, makeServerCertificate, createCatalog, startCatalog };
