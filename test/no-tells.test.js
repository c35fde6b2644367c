'use strict';
// No app can tell a check from `workbook run`, `load` or `profile`, and none
// can talk the harness into a figure (issue 23). Each test would fail
// without its mechanism: the probe hiding the workbook's variables and its
// own preload (hidden-env.js), the control channel over the census instead
// of IPC, a real port number, CPU counted over every process of the app,
// and the census reading memory through functions captured before the
// app's code ran.

const path = require('node:path');
const { startApp, AppError } = require('../scripts/harness/app-process');
const { get } = require('../scripts/harness/http-client');
const { runLoad } = require('../scripts/harness/run-load');
const { killAll } = require('../scripts/harness/children');

const SNOOPING_APP = path.join(__dirname, 'fixtures', 'load-apps', 'snooping-app.js');

afterAll(() => killAll());

async function withApp(env, fn) {
  const app = await startApp(SNOOPING_APP, { env });
  try {
    return await fn(app);
  } finally {
    await app.stop();
  }
}

test('the app and the processes it starts see no workbook variable, no preload, no IPC channel of the harness, and a real port', async () => {
  await withApp({}, async (app) => {
    const { app: own, child } = JSON.parse((await get(`${app.url}/seen`)).body);
    expect(own).toEqual({ env: [], nodeOptions: null, execArgv: [], ipc: false, port: String(app.port) });
    expect(Number(own.port)).toBeGreaterThan(0);
    // The child was forked with what the app could see: it sees no more.
    expect(child.env).toEqual([]);
    expect(child.nodeOptions).toBeNull();
    // ...and still reports to the census.
    const reading = await app.memory();
    expect(reading.processes).toBe(2);
    expect(reading.missing).toEqual([]);
  });
});

test('`workbook run` starts an app the same way as a check: the same things seen, but its port', async () => {
  const { startCli, waitForOutput } = require('./helpers/cli');
  const checked = await withApp({}, async (app) => JSON.parse((await get(`${app.url}/seen`)).body));
  const cli = startCli(['run', '01', '--app', SNOOPING_APP, '--port', '0']);
  let run;
  try {
    const [, url] = await waitForOutput(cli, (out) => /listening on (http:\/\/\S+) \(pid \d+\)/.exec(out));
    run = JSON.parse((await get(`${url}/seen`)).body);
  } finally {
    cli.child.kill('SIGINT');
    await cli.done;
  }
  for (const view of [checked, run]) {
    delete view.app.port;
    delete view.child.port;
  }
  expect(run).toEqual(checked);
});

test('CPU time is the whole app\'s: a child process\'s work counts', async () => {
  await withApp({}, async (app) => {
    // The child reports to the census once its connection is up, which on a
    // busy machine can be after the app listens: measure from then on (a
    // fresh clone's npm test read 0 here once, the child not yet counted).
    let before = await app.cpuAndRequests();
    for (const deadline = Date.now() + 10_000; before.processes < 2 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      before = await app.cpuAndRequests();
    }
    expect(before.processes).toBe(2);
    await get(`${app.url}/burn?ms=300`);
    const after = await app.cpuAndRequests();
    const others = after.total - after.own - (before.total - before.own);
    expect(others).toBeGreaterThan(250_000);
    expect(after.own - before.own).toBeLessThan(150_000);
  });
});

test('an app that replaces process.memoryUsage, v8\'s statistics and JSON.stringify still has its memory read', async () => {
  await withApp({ FAKE_MEMORY: '1' }, async (app) => {
    await runLoad({ url: app.url, path: '/keep', connections: 2, amount: 200 });
    const before = await app.memory();
    await runLoad({ url: app.url, path: '/keep', connections: 2, amount: 2000 });
    const after = await app.memory();
    expect((after.total - before.total) / 2000).toBeGreaterThan(0.8 * 2048);
  });
});

test('a reading without the app\'s main thread is an error, not a small figure', async () => {
  const { Census } = require('../scripts/harness/census');
  expect(Census).toBeUndefined(); // the class stays private: readings come through app.memory()
  await withApp({}, async (app) => {
    const measure = app.census.measure.bind(app.census);
    app.census.measure = async (options) => ({ ...(await measure(options)), targetAnswered: false });
    await expect(app.memory()).rejects.toThrow(AppError);
    await expect(app.memory()).rejects.toThrow(/main thread did not report its memory/);
  });
});

describe('a check gives the app what `workbook run` gives it, and no more', () => {
  const fs = require('node:fs');
  const os = require('node:os');
  const { runCheck } = require('../scripts/checks/run-check');
  const { labs, checkOf } = require('../scripts/lib/labs');

  /** A lab whose check gives the app `env` (its services declaring `declared`). */
  function labGiving(env, declared) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-tells-'));
    const module = path.join(dir, 'check.js');
    const services = declared ? `services: { env: ${JSON.stringify(declared)}, describe: 'a service', start: async () => ({ env: {}, close: async () => {} }) },` : '';
    fs.writeFileSync(
      module,
      `const { defineCheck } = require(${JSON.stringify(path.join(__dirname, '..', 'scripts', 'checks', 'define-check'))});
module.exports = defineCheck({
  gates: { g: { label: 'g', op: '<', threshold: 1, unit: 'x', pass: 'p', fail: 'f' } },
  starterFails: ['g'],
  standardLoad: { path: '/seen', connections: 1, duration: 1, describe: 'd' },
  advice: 'a', explain: { kind: 'machine-independent', noise: 'n' }, ${services}
  async measure(ctx) {
    await ctx.start(ctx.candidate, undefined, { env: ${JSON.stringify(env)} });
    return { figures: { g: { value: 0 } }, responses: [], info: [], noise: [], series: {} };
  },
}, __filename);`,
    );
    return { id: '99', slug: '99-tells', title: 'tells', app: SNOOPING_APP, solutionApp: SNOOPING_APP, checkModule: module, dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
  }

  test('a variable the lab\'s services do not declare is refused, with the way out', async () => {
    const lab = labGiving({ CHECKED: '1' }, null);
    try {
      await expect(runCheck(lab, { retries: 0 })).rejects.toThrow(/gives the app CHECKED, which `workbook run` does not: declare it in the check's services/);
    } finally {
      lab.remove();
    }
  });

  test('a declared one, or one taken away, is allowed', async () => {
    const lab = labGiving({ SERVICE_URL: 'http://127.0.0.1:1', UV_THREADPOOL_SIZE: undefined }, ['SERVICE_URL']);
    try {
      expect((await runCheck(lab, { retries: 0 })).verdict).toBe('pass');
    } finally {
      lab.remove();
    }
  });

  test('every lab\'s services, started as `workbook run` starts them, give the app exactly the variables they declare', async () => {
    const { launchFor } = require('../scripts/harness/lab-launch');
    for (const lab of labs.filter((l) => checkOf(l).services)) {
      const launch = await launchFor(lab); // throws when they differ
      try {
        expect(Object.keys(launch.env).sort()).toEqual([...checkOf(lab).services.env].sort());
        for (const value of Object.values(launch.env)) expect(typeof value).toBe('string');
      } finally {
        await launch.close();
      }
    }
  }, 120_000);
});
