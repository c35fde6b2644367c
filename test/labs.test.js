'use strict';
// Every lab is complete, and every lab app keeps the contract: it runs alone
// with plain `node app.js`, honours HOST and PORT (PORT=0 included), and
// prints its URL.

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { labs, ROOT, findLab, checkOf } = require('../scripts/lib/labs');
const { track } = require('../scripts/harness/children');
const { get } = require('../scripts/harness/http-client');
const { waitForExit } = require('./helpers/processes');
const { materializeShipped } = require('../scripts/lib/shipped');
const { inPool } = require('./helpers/pool');

// The starter as shipped: a learner's half-finished edit must not turn the
// self-check red.
function shippedApp(lab) {
  const shipped = materializeShipped(lab);
  return shipped.error ? lab.app : shipped.app;
}

test('the lab list and the labs/ folders agree', () => {
  const folders = fs.readdirSync(path.join(ROOT, 'labs'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  expect(labs.map((l) => l.slug)).toEqual(folders);
});

test('lab ids resolve from 1, 01, the slug and the slug without its number', () => {
  for (const lab of labs) {
    for (const id of [String(lab.number), lab.id, lab.slug, lab.slug.slice(3)]) {
      expect(findLab(id)).toBe(lab);
    }
  }
  expect(findLab('99')).toBeUndefined();
  expect(findLab('')).toBeUndefined();
});

/**
 * Starts `file` as a learner would (`node app.js`, PORT=0), waits for the URL
 * it prints, asks it for the lab's first example path, and ends it.
 * @returns {Promise<{url:string, status:number}>}
 */
async function startAlone(lab, file) {
  const child = track(spawn(process.execPath, [file], { cwd: ROOT, env: { ...process.env, PORT: '0', HOST: '' }, stdio: ['ignore', 'pipe', 'pipe'] }));
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      // 30 s: a lab's first start in a fresh clone prepares what it runs on
      // (lab 11 its database, lab 12 its certificates, lab 14 its generated
      // files), four apps at a time on what may be two cores.
      const timer = setTimeout(() => reject(new Error(`no URL printed within 30 s:\n${out}`)), 30_000);
      child.stdout.on('data', (d) => {
        out += d;
        const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
        if (m && m[1] !== '0') {
          clearTimeout(timer);
          resolve(m[0]);
        }
      });
      child.on('exit', (code) => reject(new Error(`exited with ${code}`)));
    });
    const { standardLoad } = checkOf(lab);
    const first = (standardLoad.examples || ['/'])[0];
    return { url, status: (await get(url + first)).status };
  } finally {
    child.kill('SIGKILL');
    await waitForExit(child.pid);
  }
}

// Every lab's starter and solution, started four at a time (each mostly
// waits for Node to start), once for the whole file.
let started = null;
function startedAlone() {
  const runs = labs.flatMap((lab) => [
    [`${lab.slug} starter`, lab, shippedApp(lab)],
    [`${lab.slug} solution`, lab, lab.solutionApp],
  ]);
  started ??= inPool(runs, 4, ([, lab, file]) => startAlone(lab, file)).then((outcomes) =>
    Object.fromEntries(runs.map(([name], i) => [name, outcomes[i]])),
  );
  return started;
}

describe.each(labs.map((lab) => [lab.slug, lab]))('%s', (slug, lab) => {
  test('has its starter, walkthrough, solution, check and test', () => {
    for (const file of [lab.app, lab.readme, lab.solutionApp, lab.checkModule, lab.testFile]) {
      expect(fs.existsSync(file) ? path.relative(ROOT, file) : `missing: ${path.relative(ROOT, file)}`).toBe(path.relative(ROOT, file));
    }
    const check = checkOf(lab);
    expect(typeof check.run).toBe('function');
    expect(check.standardLoad).toEqual(expect.objectContaining({ path: expect.any(String), connections: expect.any(Number), duration: expect.any(Number) }));
  });

  test.each(['starter', 'solution'])('the %s runs alone on PORT=0, prints its URL and answers', async (which) => {
    const outcome = (await startedAlone())[`${slug} ${which}`];
    if (outcome instanceof Error) throw outcome;
    expect(outcome.status).toBeLessThan(500);
  });
});
