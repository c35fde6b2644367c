'use strict';
// Lab 15's check against fixtures: other real fixes, which allocate in
// their own ways, must pass; "fixes" that hide the allocations from the
// collector's pause times (a bigger young generation, by a flag in the
// code or in a re-spawned process), that leave most of them in place, or
// that answer from a cache, must fail. Each is the shipped starter or the
// reference solution with a few lines changed (derivedApp: a change to
// their base that breaks a patch fails loudly). The lab's own suite is
// labs/15-garbage-collector-churn/check/verdicts.test.js.

const fs = require('node:fs');
const { findLab } = require('../../scripts/lib/labs');
const { materializeShipped } = require('../../scripts/lib/shipped');
const { describeFixtures, expectGates } = require('../../test/helpers/lab-verdicts');
const { derivedApp } = require('../../test/helpers/derived-app');

const lab = findLab('15');

const starter = () => {
  const shipped = materializeShipped(lab);
  if (shipped.error) throw new Error(shipped.error);
  return shipped.app;
};
// The derived apps live in .workbook/derived/: they find the registry by the path the solution uses.
const REGISTRY = ["require('./sensors')", "require('../../labs/15-garbage-collector-churn/sensors')"];
const fromStarter = (name, patches) => derivedApp(`15-${name}`, starter(), [REGISTRY, ...patches]);
const fromSolution = (name, patches) => derivedApp(`15-${name}`, lab.solutionApp, patches);

/** The starter's text from `start` up to (not including) `end`: a patch that replaces a whole stretch of it. */
function stretch(start, end) {
  const source = fs.readFileSync(starter(), 'utf8');
  const from = source.indexOf(start);
  const to = source.indexOf(end, from);
  if (from === -1 || to === -1) throw new Error(`the starter no longer has "${start}" … "${end}"`);
  return source.slice(from, to);
}

// The starter's hot path: parseBatch() and summarise(), up to the Express app.
const HOT_PATH = () => stretch('/** The readings of one CSV batch', 'const app = express();');
const HANDLER = `  const batch = parseBatch(req.body);
  if (batch.error) return res.status(400).json({ error: batch.error });
  res.json(summarise(batch));`;

// A fix most people would write: split into lines and cells, but no object
// per field, no copies, no registry clone; one running total per series.
const SPLIT_LOOP = `function summariseText(text) {
  const lines = text.split('\\n');
  let columns = null;
  let at = null;
  const totals = new Map();
  let accepted = 0;
  let rejected = 0;
  const rejectedLines = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '' || line[0] === '#') continue;
    if (columns === null) {
      columns = line.split(',').map((name) => name.trim());
      const missing = REQUIRED.filter((name) => !columns.includes(name));
      if (missing.length) return { error: \`the header line has no \${missing.join(', ')} column\` };
      at = { sensor: columns.indexOf('sensor'), metric: columns.indexOf('metric'), time: columns.indexOf('time'), value: columns.indexOf('value') };
      continue;
    }
    const cells = line.split(',');
    let ok = cells.length === columns.length;
    if (ok) {
      const sensorId = cells[at.sensor].trim();
      const metricName = cells[at.metric].trim();
      const time = cells[at.time].trim();
      const text = cells[at.value].trim();
      const sensor = SENSORS[sensorId];
      const metric = METRICS[metricName];
      const when = TIME.test(time) ? Date.parse(time) : NaN;
      const value = VALUE.test(text) ? Number(text) : NaN;
      ok = Boolean(sensor && metric && sensor.metrics.includes(metricName)) && !Number.isNaN(when) && value >= metric.min && value <= metric.max;
      if (ok) {
        const key = sensorId + '|' + metricName;
        const t = totals.get(key);
        if (t === undefined) totals.set(key, { sensor: sensorId, metric: metricName, count: 1, min: value, max: value, sum: value, first: when, last: when });
        else {
          t.count++;
          if (value < t.min) t.min = value;
          if (value > t.max) t.max = value;
          t.sum += value;
          if (when < t.first) t.first = when;
          if (when > t.last) t.last = when;
        }
      }
    }
    if (ok) accepted++;
    else {
      rejected++;
      if (rejectedLines.length < REJECTED_SHOWN) rejectedLines.push(i + 1);
    }
  }
  if (columns === null) return { error: 'the batch is empty: expected a header line and readings' };
  const series = [...totals.values()]
    .map((t) => ({ sensor: t.sensor, metric: t.metric, unit: METRICS[t.metric].unit, count: t.count, min: t.min, max: t.max, sum: round2(t.sum), first: new Date(t.first).toISOString(), last: new Date(t.last).toISOString() }))
    .sort((a, b) => (a.sensor === b.sensor ? (a.metric < b.metric ? -1 : 1) : a.sensor < b.sensor ? -1 : 1));
  return { accepted, rejected, rejectedLines, series };
}

`;

// Another design: the batch read from the request as it arrives, decoded
// chunk by chunk, each line handled as soon as it is whole (no string of
// the whole body), with the same running totals as SPLIT_LOOP.
const STREAMING_ROUTE = `app.post('/readings', async (req, res) => {
  const type = String(req.headers['content-type'] || '');
  if (!/^text\\/(csv|plain)\\b/.test(type)) {
    req.resume();
    return res.status(415).json({ error: 'send the batch as text/csv' });
  }
  req.setEncoding('utf8');
  const state = { columns: null, at: null, totals: new Map(), accepted: 0, rejected: 0, rejectedLines: [], error: null };
  let rest = '';
  let number = 0;
  for await (const chunk of req) {
    const text = rest + chunk;
    let from = 0;
    for (let nl = text.indexOf('\\n'); nl !== -1; nl = text.indexOf('\\n', from)) {
      takeLine(state, text.slice(from, nl), ++number);
      from = nl + 1;
    }
    rest = text.slice(from);
  }
  takeLine(state, rest, ++number);
  if (state.error) return res.status(400).json({ error: state.error });
  if (state.columns === null) return res.status(400).json({ error: 'the batch is empty: expected a header line and readings' });
  const series = [...state.totals.values()]
    .map((t) => ({ sensor: t.sensor, metric: t.metric, unit: METRICS[t.metric].unit, count: t.count, min: t.min, max: t.max, sum: round2(t.sum), first: new Date(t.first).toISOString(), last: new Date(t.last).toISOString() }))
    .sort((a, b) => (a.sensor === b.sensor ? (a.metric < b.metric ? -1 : 1) : a.sensor < b.sensor ? -1 : 1));
  res.json({ accepted: state.accepted, rejected: state.rejected, rejectedLines: state.rejectedLines, series });
});

function takeLine(state, raw, number) {
  if (state.error) return;
  const line = raw.trim();
  if (line === '' || line[0] === '#') return;
  if (state.columns === null) {
    state.columns = line.split(',').map((name) => name.trim());
    const missing = REQUIRED.filter((name) => !state.columns.includes(name));
    if (missing.length) state.error = \`the header line has no \${missing.join(', ')} column\`;
    state.at = { sensor: state.columns.indexOf('sensor'), metric: state.columns.indexOf('metric'), time: state.columns.indexOf('time'), value: state.columns.indexOf('value') };
    return;
  }
  const cells = line.split(',');
  let ok = cells.length === state.columns.length;
  if (ok) {
    const sensorId = cells[state.at.sensor].trim();
    const metricName = cells[state.at.metric].trim();
    const time = cells[state.at.time].trim();
    const text = cells[state.at.value].trim();
    const sensor = SENSORS[sensorId];
    const metric = METRICS[metricName];
    const when = TIME.test(time) ? Date.parse(time) : NaN;
    const value = VALUE.test(text) ? Number(text) : NaN;
    ok = Boolean(sensor && metric && sensor.metrics.includes(metricName)) && !Number.isNaN(when) && value >= metric.min && value <= metric.max;
    if (ok) {
      const key = sensorId + '|' + metricName;
      const t = state.totals.get(key);
      if (t === undefined) state.totals.set(key, { sensor: sensorId, metric: metricName, count: 1, min: value, max: value, sum: value, first: when, last: when });
      else {
        t.count++;
        if (value < t.min) t.min = value;
        if (value > t.max) t.max = value;
        t.sum += value;
        if (when < t.first) t.first = when;
        if (when > t.last) t.last = when;
      }
    }
  }
  if (ok) state.accepted++;
  else {
    state.rejected++;
    if (state.rejectedLines.length < REJECTED_SHOWN) state.rejectedLines.push(number);
  }
}`;

describe('lab 15 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      ['a loop over split lines and cells with one running total per series (no object per field, no copies, no registry clone)', fromStarter('split-loop', [
        [HOT_PATH(), SPLIT_LOOP],
        [HANDLER, '  const summary = summariseText(req.body);\n  if (summary.error) return res.status(400).json({ error: summary.error });\n  res.json(summary);'],
      ])],
      [
        'a streaming parser: each line handled as it arrives, the body never whole in one string',
        fromStarter('streaming', [[stretch("app.post('/readings'", "app.get('/health'"), `${STREAMING_ROUTE}\n\n`]]),
      ],
      [
        'the reference run in a worker thread per batch from a small pool (its allocation is in the workers\' heaps)',
        fromSolution('in-a-worker', [
          ["const express = require('express');", `const { Worker, isMainThread, parentPort } = require('node:worker_threads');
const express = require('express');`],
          ["const app = express();", `if (!isMainThread) {
  parentPort.on('message', ({ id, text }) => parentPort.postMessage({ id, summary: summarise(text) }));
  return;
}
const pool = Array.from({ length: 2 }, () => new Worker(__filename));
const waiting = new Map();
let next = 0;
for (const worker of pool) worker.on('message', ({ id, summary }) => { waiting.get(id)(summary); waiting.delete(id); });
const inWorker = (text) => new Promise((resolve) => { const id = next++; waiting.set(id, resolve); pool[id % pool.length].postMessage({ id, text }); });
const app = express();`],
          ["app.post('/readings', express.text({ type: ['text/csv', 'text/plain'], limit: '10mb' }), (req, res) => {", "app.post('/readings', express.text({ type: ['text/csv', 'text/plain'], limit: '10mb' }), async (req, res) => {"],
          ['  const summary = summarise(req.body);', '  const summary = await inWorker(req.body);'],
        ]),
      ],
    ],
    cheats: [
      [
        'the starter with --max-semi-space-size=64 set in its code (v8.setFlagsFromString, which V8 does not apply once the heap is set up)',
        fromStarter('semi-space-flag', [["const express = require('express');", "require('node:v8').setFlagsFromString('--max-semi-space-size=64');\nconst express = require('express');"]]),
        (result) => expectGates(result, { allocation: false }),
      ],
      [
        'the starter re-started by itself with --max-semi-space-size=64 (a cluster worker serves): fewer collections, the same allocations',
        fromStarter('semi-space-respawn', [
          [
            "const express = require('express');",
            `const cluster = require('node:cluster');
if (cluster.isPrimary) {
  cluster.setupPrimary({ execArgv: [...process.execArgv, '--max-semi-space-size=64'] });
  cluster.fork().on('exit', (code) => process.exit(code ?? 1));
  return;
}
const express = require('express');`,
          ],
        ]),
        (result) => expectGates(result, { allocation: false }),
      ],
      [
        'the starter without the registry\'s copy per request (a quarter of a megabyte of its four)',
        fromStarter('no-clone', [["  const registry = JSON.parse(JSON.stringify({ sensors: SENSORS, metrics: METRICS }));", '  const registry = { sensors: SENSORS, metrics: METRICS };']]),
        (result) => expectGates(result, { allocation: false }),
      ],
      [
        'a half-fix: no registry copy, no object of entries, no spread copies, but the chain of split, map and filter kept (an object, a Date and a key string per line)',
        fromStarter('chains-no-copies', [
          ['  const registry = JSON.parse(JSON.stringify({ sensors: SENSORS, metrics: METRICS }));', '  const registry = { sensors: SENSORS, metrics: METRICS };'],
          [
            '    const fields = Object.fromEntries(columns.map((name, i) => [name, cells[i]]));\n    return { ...fields, line: line.number, cells: cells.length };',
            "    return { sensor: cells[columns.indexOf('sensor')], metric: cells[columns.indexOf('metric')], time: cells[columns.indexOf('time')], value: cells[columns.indexOf('value')], line: line.number, cells: cells.length };",
          ],
          ['  const checked = records.map((r) => ({ ...r, ok: r.cells === columns.length && isValid(r, registry) }));', '  const checked = records;\n  for (const r of checked) r.ok = r.cells === columns.length && isValid(r, registry);'],
          ['    .map((r) => ({\n    ...r,\n    value: Number(r.value),\n    at: new Date(r.time),\n    key: `${r.sensor}|${r.metric}`,\n  }));', '    .map((r) => Object.assign(r, { value: Number(r.value), at: new Date(r.time), key: `${r.sensor}|${r.metric}` }));'],
        ]),
        (result) => expectGates(result, { allocation: false }),
      ],
      [
        'the starter with a cache of whole answers by batch (every batch is new: it never hits)',
        fromStarter('answer-cache', [
          [HANDLER, `  const key = require('node:crypto').createHash('sha1').update(req.body).digest('hex');
  if (answers.has(key)) return res.json(answers.get(key));
  const batch = parseBatch(req.body);
  if (batch.error) return res.status(400).json({ error: batch.error });
  const summary = summarise(batch);
  answers.set(key, summary);
  res.json(summary);`],
          ['const app = express();', 'const answers = new Map();\nconst app = express();'],
        ]),
        (result) => expectGates(result, { allocation: false }),
      ],
      [
        'a cache of answers by batch size in 4 KB steps (a batch of about the size of another gets the other\'s summary)',
        fromSolution('loose-cache', [
          ['  const summary = summarise(req.body);', `  const key = Math.round(req.body.length / 4096);
  const summary = answers.get(key) ?? summarise(req.body);
  answers.set(key, summary);`],
          ['const app = express();', 'const answers = new Map();\nconst app = express();'],
        ]),
        (result) => expect(result.responses.some((r) => !r.pass)).toBe(true),
      ],
    ],
  });
});
