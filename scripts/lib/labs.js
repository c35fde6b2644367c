'use strict';
// The one list of labs. Every command, check, test and page finds a lab and
// its files through here.

const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');

const LABS = [
  {
    number: 1,
    slug: '01-sync-pbkdf2',
    title: 'Synchronous pbkdf2 blocks the event loop',
    minutes: 40,
    teaches: 'event-loop blocking, node --prof and --prof-process, the libuv thread pool',
  },
  {
    number: 2,
    slug: '02-express-vs-fastify',
    title: 'Framework overhead: Express vs Fastify',
    minutes: 45,
    teaches: 'throughput baselines, CPU profiles and flame graphs of a framework, JSON schemas',
  },
  {
    number: 3,
    slug: '03-leaking-set',
    title: 'A Set that never forgets: a memory leak',
    minutes: 45,
    teaches: '--trace-gc, heap snapshots and their comparison, --max-old-space-size, heap profiling',
  },
  {
    number: 4,
    slug: '04-handlebars-compile',
    title: 'A template compiled on every request',
    minutes: 40,
    teaches: 'Clinic.js Doctor, flame graphs of a library, event-loop lag, caching compiled work',
  },
];

function describe(lab) {
  const dir = path.join(ROOT, 'labs', lab.slug);
  const solutionDir = path.join(ROOT, 'solutions', lab.slug);
  return {
    ...lab,
    id: lab.slug.slice(0, 2),
    dir,
    app: path.join(dir, 'app.js'),
    readme: path.join(dir, 'README.md'),
    solutionDir,
    solutionApp: path.join(solutionDir, 'app.js'),
    checkModule: path.join(ROOT, 'test', 'checks', `${lab.slug}.js`),
    testFile: path.join(ROOT, 'test', `${lab.slug}.test.js`),
  };
}

const all = LABS.map(describe);

/**
 * Finds a lab by `1`, `01`, `01-sync-pbkdf2` or `sync-pbkdf2`.
 * @returns the lab, or undefined
 */
function findLab(id) {
  const key = String(id ?? '').trim().toLowerCase();
  if (/^\d+$/.test(key)) return all.find((lab) => lab.number === Number(key));
  return all.find((lab) => lab.slug === key || lab.slug.slice(3) === key);
}

/** A one-line hint listing the valid lab ids, for usage errors. */
function labIdsHint() {
  return all.map((lab) => `${lab.id} (${lab.slug})`).join(', ');
}

/** Path relative to the repository root, with forward slashes, for display. */
function relative(file) {
  const rel = path.relative(ROOT, file);
  return rel.startsWith('..') ? file : rel.split(path.sep).join('/');
}

module.exports = { ROOT, labs: all, findLab, labIdsHint, relative };
