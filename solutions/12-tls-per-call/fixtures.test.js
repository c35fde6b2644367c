'use strict';
// Lab 12's check against fixtures: other real fixes must pass; "fixes" that
// keep paying a handshake per call, answer without asking the catalogue,
// stop checking its certificate (or pin the first one instead of trusting
// the CA), or send every call down one connection must fail. Each is the shipped starter or the reference solution with a
// few lines changed (derivedApp: a change to their base that breaks a patch
// fails loudly). The lab's own suite is labs/12-tls-per-call/check/verdicts.test.js.

const tls = require('node:tls');
const { findLab } = require('../../scripts/lib/labs');
const { materializeShipped } = require('../../scripts/lib/shipped');
const { describeFixtures } = require('../../test/helpers/lab-verdicts');
const { derivedApp } = require('../../test/helpers/derived-app');

const lab = findLab('12');
const failedGates = (result) => result.gates.filter((g) => !g.pass).map((g) => g.id);
const wrongResponses = (result) => result.responses.filter((r) => !r.pass).map((r) => `${r.name}: ${r.actual}`).join('\n');

const starter = () => {
  const shipped = materializeShipped(lab);
  if (shipped.error) throw new Error(shipped.error);
  return shipped.app;
};
// The derived apps live in .workbook/derived/: they find catalog.js by the path the solution uses.
const CATALOG = ["require('./catalog')", "require('../../labs/12-tls-per-call/catalog')"];
const fromStarter = (name, patches) => derivedApp(`12-${name}`, starter(), [CATALOG, ...patches]);
const fromSolution = (name, patches) => derivedApp(`12-${name}`, lab.solutionApp, patches);

// The lines of the starter and the solution the fixtures change.
const PER_CALL_AGENT = `    // Node's default agent trusts the public CAs only: this one trusts ours.
    const agent = new https.Agent({ ca: catalog.ca });
    const req = https.get(new URL(path, catalog.url), { agent, timeout: TIMEOUT_MS }, (res) => {`;
const SHARED_AGENT = 'const agent = new https.Agent({ ca, keepAlive: true, maxSockets: 32, timeout: 4000 });';
const CALL = `    answer = await catalogGet(\`/v1/products/\${id}\`);`;
// The starter's whole catalogGet(), for the fixtures that replace it.
const CATALOG_GET_START = '/** GET a path of the catalogue: resolves to its status and body. */\nfunction catalogGet(path) {';

/** The starter with catalogGet() replaced by `replacement` (which must define catalogGet). */
function replacingCatalogGet(name, replacement) {
  const source = require('node:fs').readFileSync(starter(), 'utf8');
  const start = source.indexOf(CATALOG_GET_START);
  const end = source.indexOf('\n}\n', start) + 3;
  if (start < 0 || end < 3) throw new Error(`fixture ${name}: catalogGet() is no longer in the starter`);
  return fromStarter(name, [[source.slice(start, end), replacement]]);
}

describe('lab 12 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      [
        'the CA in the request options and no agent: Node\'s global agent, which keeps connections alive (Node 19 and later) and pools them by CA',
        fromStarter('ca-in-options', [
          [
            PER_CALL_AGENT,
            '    const req = https.get(new URL(path, catalog.url), { ca: catalog.ca, timeout: TIMEOUT_MS }, (res) => {',
          ],
        ]),
      ],
      [
        'an agent per CA, made on first use and kept in a Map',
        fromStarter('agent-per-ca', [
          [
            PER_CALL_AGENT,
            `    let agent = agents.get(catalog.ca);
    if (!agent) agents.set(catalog.ca, (agent = new https.Agent({ ca: catalog.ca, keepAlive: true })));
    const req = https.get(new URL(path, catalog.url), { agent, timeout: TIMEOUT_MS }, (res) => {`,
          ],
          ['/** GET a path of the catalogue: resolves to its status and body. */', 'const agents = new Map(); // CA → its agent\n\n/** GET a path of the catalogue: resolves to its status and body. */'],
        ]),
      ],
      [
        'an undici Pool, made once',
        replacingCatalogGet(
          'undici-pool',
          `const { Pool } = require('undici');
let pool;
async function catalogGet(path) {
  pool ??= new Pool(catalog.url, { connect: { ca: catalog.ca }, connections: 32 });
  const { statusCode, body } = await pool.request({ path, method: 'GET', headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });
  return { status: statusCode, body: await body.text() };
}
`,
        ),
      ],
      [
        'undici\'s fetch with one Agent as its dispatcher',
        replacingCatalogGet(
          'undici-fetch',
          `const { Agent, fetch } = require('undici');
let dispatcher;
async function catalogGet(path) {
  dispatcher ??= new Agent({ connect: { ca: catalog.ca } });
  const res = await fetch(new URL(path, catalog.url), { dispatcher, signal: AbortSignal.timeout(TIMEOUT_MS) });
  return { status: res.status, body: await res.text() };
}
`,
        ),
      ],
      [
        // Node's own fetch reads undici's global dispatcher (a process-wide
        // setting, shared by name with the undici package): one Agent there,
        // with the CA, and every fetch keeps its connections and trusts it.
        'Node\'s own fetch after undici\'s setGlobalDispatcher(new Agent({ connect: { ca } }))',
        replacingCatalogGet(
          'global-dispatcher-fetch',
          `let dispatcherSet = false;
async function catalogGet(path) {
  if (!dispatcherSet) {
    const { Agent, setGlobalDispatcher } = require('undici');
    setGlobalDispatcher(new Agent({ connect: { ca: catalog.ca } }));
    dispatcherSet = true;
  }
  const res = await fetch(new URL(path, catalog.url), { signal: AbortSignal.timeout(TIMEOUT_MS) });
  return { status: res.status, body: await res.text() };
}
`,
        ),
      ],
      // Node 24.5 and 22.19 added tls.setDefaultCACertificates(): the CA
      // added to the default ones once, and Node's own fetch (whose global
      // dispatcher keeps connections alive) trusts it. Not on Node 20.
      ...(typeof tls.setDefaultCACertificates === 'function'
        ? [
            [
              'Node\'s fetch after tls.setDefaultCACertificates() (Node 24.5 and 22.19 and later)',
              replacingCatalogGet(
                'default-ca-fetch',
                `let trusted = false;
async function catalogGet(path) {
  if (!trusted) {
    const tls = require('node:tls');
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), catalog.ca]);
    trusted = true;
  }
  const res = await fetch(new URL(path, catalog.url), { signal: AbortSignal.timeout(TIMEOUT_MS) });
  return { status: res.status, body: await res.text() };
}
`,
              ),
            ],
          ]
        : []),
    ],
    cheats: [
      [
        'an agent per call that keeps its connection alive (each agent\'s pool serves one call, then idles)',
        fromStarter('per-call-keepalive', [['new https.Agent({ ca: catalog.ca })', 'new https.Agent({ ca: catalog.ca, keepAlive: true })']]),
        (result) => expect(failedGates(result)).toContain('tls-handshakes'),
      ],
      [
        'an agent per call sharing one secure context (cheaper connections, as many of them)',
        fromStarter('per-call-shared-context', [
          ['new https.Agent({ ca: catalog.ca })', 'new https.Agent({ secureContext: (secureContext ??= require(\'node:tls\').createSecureContext({ ca: catalog.ca })) })'],
          ['/** GET a path of the catalogue: resolves to its status and body. */', 'let secureContext; // made once, with the CA\n\n/** GET a path of the catalogue: resolves to its status and body. */'],
        ]),
        (result) => expect(failedGates(result)).toContain('tls-handshakes'),
      ],
      [
        'an agent per call that resumes the last TLS session (a resumed handshake is still a new connection)',
        fromStarter('per-call-resumed', [
          [
            PER_CALL_AGENT,
            `    const agent = new https.Agent({ ca: catalog.ca });
    const req = https.get(new URL(path, catalog.url), { agent, session: lastSession, timeout: TIMEOUT_MS }, (res) => {`,
          ],
          ['    req.on(\'timeout\',', '    req.on(\'socket\', (socket) => socket.once(\'session\', (session) => (lastSession = session)));\n    req.on(\'timeout\','],
          ['/** GET a path of the catalogue: resolves to its status and body. */', 'let lastSession; // the last TLS session ticket the catalogue gave\n\n/** GET a path of the catalogue: resolves to its status and body. */'],
        ]),
        (result) => expect(failedGates(result)).toContain('tls-handshakes'),
      ],
      [
        'answers kept in a Map: no call for a product asked for before',
        fromSolution('cache', [
          [CALL, `    answer = answers.get(id) ?? (await catalogGet(\`/v1/products/\${id}\`));\n    answers.set(id, answer);`],
          ['const app = express();', 'const answers = new Map(); // id → the catalogue\'s answer\nconst app = express();'],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/served from a cache\?/),
      ],
      [
        'answers kept for a second (a "micro-cache")',
        fromSolution('micro-cache', [
          [
            CALL,
            `    const kept = answers.get(id);
    if (kept && Date.now() - kept.at < 1000) answer = kept.answer;
    else answers.set(id, { answer: (answer = await catalogGet(\`/v1/products/\${id}\`)), at: Date.now() });`,
          ],
          ['const app = express();', 'const answers = new Map(); // id → { answer, at }\nconst app = express();'],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/served from a cache\?|answered without asking/),
      ],
      [
        'a product page made up without calling the catalogue',
        fromSolution('no-call', [
          [CALL, '    answer = { status: 200, body: JSON.stringify({ id: Number(id), name: \'product\', priceCents: 999, currency: \'EUR\', stock: 1 }) };'],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/not the catalogue's product|none reached/),
      ],
      [
        'calls over plain HTTP (no handshake at all)',
        fromSolution('plain-http', [
          ["const https = require('node:https');", "const https = require('node:https');\nconst http = require('node:http');"],
          [
            '    const req = https.get(new URL(path, catalog.url), { agent: catalog.agent, timeout: TIMEOUT_MS }, (res) => {',
            "    const req = http.get(new URL(path, catalog.url.replace('https:', 'http:')), { timeout: TIMEOUT_MS }, (res) => {",
          ],
        ]),
        (result) => expect(wrongResponses(result)).not.toBe(''),
      ],
      [
        'a shared agent that does not check the certificate (rejectUnauthorized: false)',
        fromSolution('no-verify', [[SHARED_AGENT, 'const agent = new https.Agent({ keepAlive: true, maxSockets: 32, timeout: 4000, rejectUnauthorized: false });']]),
        (result) => expect(wrongResponses(result)).toMatch(/a CA the app was not given/),
      ],
      [
        // Issue 23: it never uses the CA, and refuses both impostors (their
        // certificates are not the one it saw first), so only a renewed
        // genuine certificate tells it from an app that trusts the CA. It
        // accepts a resumed session unseen; the restarted catalogue's new
        // ticket keys make it see the renewed certificate.
        'a shared agent with verification off that pins the first certificate it sees (never uses the CA)',
        fromSolution('pin-first', [
          [
            SHARED_AGENT,
            `let pinned; // the SHA-256 fingerprint of the first certificate seen
  class PinningAgent extends https.Agent {
    createConnection(options, callback) {
      const socket = super.createConnection(options, callback);
      socket.once('secureConnect', () => {
        if (socket.isSessionReused()) return; // a session the pinned server gave us
        const seen = socket.getPeerCertificate().fingerprint256;
        pinned ??= seen;
        if (seen !== pinned) socket.destroy(new Error('not the pinned certificate'));
      });
      return socket;
    }
  }
  const agent = new PinningAgent({ keepAlive: true, maxSockets: 32, timeout: 4000, rejectUnauthorized: false });`,
          ],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/restarted with a renewed certificate: .*pin the first certificate/),
      ],
      [
        'a shared agent that does not check the name (checkServerIdentity returns nothing)',
        fromSolution('no-name-check', [[SHARED_AGENT, 'const agent = new https.Agent({ ca, keepAlive: true, maxSockets: 32, timeout: 4000, checkServerIdentity: () => undefined });']]),
        (result) => expect(wrongResponses(result)).toMatch(/for another name/),
      ],
      [
        'one connection for every call (maxSockets: 1): calls wait for each other',
        fromSolution('one-socket', [[SHARED_AGENT, 'const agent = new https.Agent({ ca, keepAlive: true, maxSockets: 1, timeout: 4000 });']]),
        (result) => expect(failedGates(result)).toEqual(['latency-p50']),
      ],
    ],
  });
});
