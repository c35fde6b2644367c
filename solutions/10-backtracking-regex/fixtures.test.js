'use strict';
// Lab 10's check against fixtures: other real fixes must pass; "fixes" that
// keep the backtracking, move it where the check does not look, answer
// wrongly, or refuse what the specification allows must fail. Each is the
// shipped starter or the reference solution with a few lines changed
// (derivedApp: a change to their base that breaks a patch fails loudly).
// The lab's own suite is labs/10-backtracking-regex/check/verdicts.test.js.
//
// The contract these fixtures hold the check to (the walkthrough's "The
// API"): every address gets the specification's answer, and judging any
// address within the specification's limits costs about what an ordinary
// address of its length costs. A worker with a time limit keeps /health
// responsive, but it either answers crafted addresses only after its limit
// (many times an ordinary one) or, with a limit short enough to pass,
// refuses valid addresses whose match takes longer than that: both fail.

const { findLab } = require('../../scripts/lib/labs');
const { materializeShipped } = require('../../scripts/lib/shipped');
const { describeFixtures, expectGates } = require('../../test/helpers/lab-verdicts');
const { derivedApp } = require('../../test/helpers/derived-app');

const lab = findLab('10');
const wrongResponses = (result) => result.responses.filter((r) => !r.pass).map((r) => `${r.name}: ${r.actual}`).join('\n');
const failedGates = (result) => result.gates.filter((g) => !g.pass).map((g) => g.id);

const starter = () => {
  const shipped = materializeShipped(lab);
  if (shipped.error) throw new Error(shipped.error);
  return shipped.app;
};
const fromStarter = (name, patches) => derivedApp(`10-${name}`, starter(), patches);
const fromSolution = (name, patches) => derivedApp(`10-${name}`, lab.solutionApp, patches);

// The lines of the starter the fixtures change.
const PATTERN = 'const EMAIL = /^([a-z0-9]+[._+-]?)*[a-z0-9]+@(([a-z0-9]+-*)*[a-z0-9]+\\.)+[a-z]{2,}$/i;';
const CHECK = `function isEmailAddress(text) {
  if (text.length > MAX_ADDRESS) return false;
  if (!EMAIL.test(text)) return false;
  const [localPart, domain] = text.split('@');
  return localPart.length <= MAX_LOCAL_PART && domain.split('.').every((label) => label.length <= MAX_LABEL);
}`;
const MATCH = '  if (!EMAIL.test(text)) return false;';
const ROUTE = "app.post('/subscribe', express.json({ limit: '2kb' }), (req, res) => {";
const VERDICT = '  if (!isEmailAddress(email)) {';
const SIGN_UP = '  const email = req.body?.email;';
// The reference's pattern: linear, the same language.
const REFERENCE_PATTERN = '/^[a-z0-9]+(?:[._+-][a-z0-9]+)*@(?:[a-z0-9]+(?:-+[a-z0-9]+)*\\.)+[a-z]{2,}$/i';
// The starter's pattern with both cases spelled out: V8's linear engine
// does not take the i flag.
const BOTH_CASES = '^([a-zA-Z0-9]+[._+-]?)*[a-zA-Z0-9]+@(([a-zA-Z0-9]+-*)*[a-zA-Z0-9]+\\\\.)+[a-zA-Z]{2,}$';

/**
 * The starter's pattern run in a worker thread, awaited by the route;
 * with `limitMs`, a match that takes longer is abandoned (the worker is
 * terminated and replaced) and the address refused with the usual 400.
 */
function inWorker(limitMs = null) {
  return [
    [
      PATTERN,
      `${PATTERN}
const { Worker } = require('node:worker_threads');
let worker = null;
let nextId = 1;
const waiting = new Map();
function matcher() {
  if (worker) return worker;
  worker = new Worker(\`
    const { parentPort } = require('node:worker_threads');
    const EMAIL = \${EMAIL};
    parentPort.on('message', ({ id, text }) => parentPort.postMessage({ id, ok: EMAIL.test(text) }));
  \`, { eval: true });
  worker.on('message', ({ id, ok }) => {
    const entry = waiting.get(id);
    if (entry) (waiting.delete(id), clearTimeout(entry.timer), entry.resolve(ok));
  });
  worker.unref();
  return worker;
}
function matches(text) {
  return new Promise((resolve) => {
    const id = nextId++;
    const entry = { resolve, timer: null };
    ${
      limitMs === null
        ? ''
        : `entry.timer = setTimeout(() => {
      // Too long: give up, and start afresh (a match cannot be interrupted otherwise).
      waiting.delete(id);
      const stuck = worker;
      worker = null;
      for (const other of waiting.values()) (clearTimeout(other.timer), other.resolve(false));
      waiting.clear();
      stuck.terminate();
      resolve(false);
    }, ${limitMs});`
    }
    waiting.set(id, entry);
    matcher().postMessage({ id, text });
  });
}`,
    ],
    ['function isEmailAddress(text) {', 'async function isEmailAddress(text) {'],
    [MATCH, '  if (!(await matches(text))) return false;'],
    [ROUTE, ROUTE.replace('(req, res) =>', 'async (req, res) =>')],
    [VERDICT, '  if (!(await isEmailAddress(email))) {'],
  ];
}

/**
 * The starter's pattern run in a \`vm\` context with a time limit of
 * \`limitMs\`: V8 interrupts the match when the limit runs out (the watchdog
 * is a thread of Node's own), and the address is then judged by a linear
 * pattern (\`fallback\`) or refused. Every answer is right with the fallback,
 * and a crafted address is answered within a few milliseconds: but for
 * those milliseconds the event loop is held, on every crafted address.
 */
function inVmBox(limitMs, { fallback }) {
  return [
    [
      PATTERN,
      `${PATTERN}
const vm = require('node:vm');
const box = vm.createContext({ EMAIL, text: '' });
const judge = new vm.Script('EMAIL.test(text)');
const LINEAR = ${REFERENCE_PATTERN};
function matches(text) {
  box.text = text;
  try {
    return judge.runInContext(box, { timeout: ${limitMs} });
  } catch (err) {
    if (err.code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw err;
    return ${fallback ? 'LINEAR.test(text)' : 'false'};
  }
}`,
    ],
    [MATCH, '  if (!matches(text)) return false;'],
  ];
}

/** Every sign-up answered no sooner than \`ms\` after it arrived, whatever the address. */
function padded(ms) {
  return [
    [ROUTE, ROUTE.replace('(req, res) =>', 'async (req, res) =>')],
    [SIGN_UP, `  await new Promise((resolve) => setTimeout(resolve, ${ms}));\n${SIGN_UP}`],
  ];
}

describe('lab 10 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      [
        'a hand-written parser instead of a pattern',
        fromStarter('hand-written-parser', [
          [
            CHECK,
            `const isAlphanumeric = (c) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
const isLetter = (c) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');

function isLabel(label) {
  if (label.length === 0 || label.length > MAX_LABEL || label[0] === '-' || label[label.length - 1] === '-') return false;
  for (const c of label) if (!isAlphanumeric(c) && c !== '-') return false;
  return true;
}

function isEmailAddress(text) {
  if (text.length > MAX_ADDRESS) return false;
  const at = text.indexOf('@');
  if (at < 1 || at > MAX_LOCAL_PART || text.indexOf('@', at + 1) !== -1) return false;
  for (let i = 0; i < at; i++) {
    if (isAlphanumeric(text[i])) continue;
    // A separator: never first or last, never after another one.
    if (!'._+-'.includes(text[i]) || i === 0 || i === at - 1 || !isAlphanumeric(text[i - 1])) return false;
  }
  const labels = text.slice(at + 1).split('.');
  const tld = labels.pop();
  return labels.length > 0 && labels.every(isLabel) && isLabel(tld) && tld.length >= 2 && [...tld].every(isLetter);
}`,
          ],
        ]),
      ],
      [
        "V8's linear engine, switched on in code (the l flag; both cases spelled out, as it takes no i)",
        fromStarter('linear-engine', [
          [
            PATTERN,
            `// Before any pattern with the l flag is made: the flag is experimental.
require('node:v8').setFlagsFromString('--enable-experimental-regexp-engine');
const EMAIL = new RegExp('${BOTH_CASES}', 'l');`,
          ],
        ]),
      ],
      [
        "the starter's pattern with V8's fallback to the linear engine after 50 000 backtracks (both cases spelled out)",
        fromStarter('fallback-engine', [
          [
            PATTERN,
            `require('node:v8').setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
const EMAIL = new RegExp('${BOTH_CASES}');`,
          ],
        ]),
      ],
      [
        'two linear patterns, the local part and the domain checked apart',
        fromSolution('two-patterns', [
          [
            'const EMAIL = /^[a-z0-9]+(?:[._+-][a-z0-9]+)*@(?:[a-z0-9]+(?:-+[a-z0-9]+)*\\.)+[a-z]{2,}$/i;',
            `const LOCAL_PART = /^[a-z0-9]+(?:[._+-][a-z0-9]+)*$/i;
const DOMAIN = /^(?:[a-z0-9]+(?:-+[a-z0-9]+)*\\.)+[a-z]{2,}$/i;
const EMAIL = { test: (text) => text.split('@').length === 2 && LOCAL_PART.test(text.split('@')[0]) && DOMAIN.test(text.split('@')[1]) };`,
          ],
        ]),
      ],
    ],
    cheats: [
      [
        'a looser pattern that accepts what is not an address',
        fromStarter('loose-pattern', [[PATTERN, 'const EMAIL = /^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$/;']]),
        (result) => expect(wrongResponses(result)).toMatch(/status 201 for an invalid address/),
      ],
      [
        'refusing any address over 20 characters, so that no run is long enough to backtrack for long',
        fromStarter('tight-limit', [['const MAX_ADDRESS = 254;', 'const MAX_ADDRESS = 20;']]),
        (result) => expect(wrongResponses(result)).toMatch(/status 400 for a valid address/),
      ],
      [
        'refusing any run of more than 12 letters or digits (the crafted shape)',
        fromStarter('no-long-runs', [[MATCH, `  if (/[a-z0-9]{13}/i.test(text)) return false;\n${MATCH}`]]),
        // Wrong (a valid 63-letter label is refused) and not enough: three
        // runs of 12 as labels still backtrack over all 36 letters.
        (result) => expect(failedGates(result).includes('crafted-ratio') || /status 400 for a valid address/.test(wrongResponses(result))).toBe(true),
      ],
      [
        "the specification's length limits checked first, the same pattern after them",
        fromStarter('limits-first', [
          [
            MATCH,
            `  const [before, after = ''] = text.split('@');
  if (before.length > MAX_LOCAL_PART || after.split('.').some((label) => label.length > MAX_LABEL)) return false;
${MATCH}`,
          ],
        ]),
        (result) => expect(failedGates(result)).toContain('crafted-ratio'),
      ],
      [
        'a timer on the main thread that answers 400 after 200 ms (it cannot fire while the pattern runs)',
        fromStarter('timer-on-main-thread', [
          [
            ROUTE,
            `app.use('/subscribe', (req, res, next) => {
  const timer = setTimeout(() => res.headersSent || res.status(400).json({ error: 'that took too long' }), 200);
  res.on('finish', () => clearTimeout(timer));
  next();
});

${ROUTE}`,
          ],
        ]),
        (result) => expect(failedGates(result)).toContain('crafted-ratio'),
      ],
      [
        'answers remembered by address (the crafted ones are new every time)',
        fromStarter('cached-answers', [
          [CHECK, `const answers = new Map();\n${CHECK.replace('function isEmailAddress(text) {', 'function judge(text) {')}\nfunction isEmailAddress(text) {\n  if (!answers.has(text)) answers.set(text, judge(text));\n  return answers.get(text);\n}`],
        ]),
        (result) => expect(failedGates(result)).toContain('crafted-ratio'),
      ],
      [
        'the pattern in a worker thread, the main thread waiting for it with Atomics.wait',
        fromStarter('worker-atomics-wait', [
          [
            PATTERN,
            `${PATTERN}
const { Worker } = require('node:worker_threads');
const shared = new Int32Array(new SharedArrayBuffer(8));
const worker = new Worker(\`
  const { parentPort, workerData } = require('node:worker_threads');
  const shared = new Int32Array(workerData);
  const EMAIL = \${EMAIL};
  parentPort.on('message', (text) => {
    Atomics.store(shared, 1, EMAIL.test(text) ? 1 : 0);
    Atomics.store(shared, 0, 1);
    Atomics.notify(shared, 0);
  });
\`, { eval: true, workerData: shared.buffer });
worker.unref();
function matches(text) {
  Atomics.store(shared, 0, 0);
  worker.postMessage(text);
  Atomics.wait(shared, 0, 0);
  return Atomics.load(shared, 1) === 1;
}`,
          ],
          [MATCH, '  if (!matches(text)) return false;'],
        ]),
        (result) => expect(failedGates(result)).toContain('crafted-ratio'),
      ],
      [
        'the pattern in a worker thread, awaited (the event loop is free, the answer is as late as before)',
        fromStarter('worker-awaited', inWorker()),
        (result) => expect(failedGates(result)).toContain('crafted-ratio'),
      ],
      [
        'a worker with a 100 ms time limit that refuses what takes longer',
        fromStarter('worker-limit-100ms', inWorker(100)),
        (result) => expect(failedGates(result)).toContain('crafted-ratio'),
      ],
      [
        // Each crafted address holds the event loop for the whole 3 ms (and
        // the watchdog's start); an attack of a few hundred a second, which
        // a linear pattern shrugs off, leaves no time for any other route.
        'the pattern in a vm context with a 3 ms time limit, a linear pattern judging what runs out of time',
        fromStarter('vm-box-3ms-fallback', inVmBox(3, { fallback: true })),
        (result) => expectGates(result, { 'crafted-ratio': true, 'routes-p50': false }),
      ],
      [
        'the pattern in a vm context with a 3 ms time limit, refusing what runs out of time',
        fromStarter('vm-box-3ms', inVmBox(3, { fallback: false })),
        // Wrong (a valid address whose match takes longer is refused), and
        // the routes starve as above.
        (result) => expect(/status 400 for a valid address/.test(wrongResponses(result)) || failedGates(result).includes('routes-p50')).toBe(true),
      ],
      [
        // The yardstick of the routes' figure is the control route, which no
        // delay of the app's own reaches: a delay on every sign-up makes a
        // crafted address look as cheap as an ordinary one, one at a time,
        // and the routes still starve under the attack.
        'a vm context with a 10 ms time limit and a linear fallback, every sign-up delayed by 20 ms so that crafted ones look no slower',
        fromStarter('vm-box-padded', [...inVmBox(10, { fallback: true }), ...padded(20)]),
        (result) => expectGates(result, { 'crafted-ratio': true, 'routes-p50': false }),
      ],
      [
        'a worker with a 3 ms time limit that refuses what takes longer (valid long top-level domains too)',
        fromStarter('worker-limit-3ms', inWorker(3)),
        (result) => expect(wrongResponses(result)).toMatch(/status 400 for a valid address/),
      ],
    ],
  });
});
