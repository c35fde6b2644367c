'use strict';
// The ingestion service of a building-monitoring platform: each gateway
// posts its sensors' readings as a CSV batch (POST /readings), and gets a
// summary per sensor and metric back.
//
// The reference fix: one pass over the batch's text that keeps only what
// the answer needs. The starter built, for every line, an object per
// field, several copies of each record (spread), a Date, a key string, an
// array per step of a map/filter chain and a new array per reading in its
// reduce, plus a deep copy of the whole sensor registry per request: over
// a kilobyte of short-lived objects for each 45-byte line, which the
// young generation's collector had to scan and the process paid for in
// scavenges. Here a line costs three short strings (the sensor's id, the
// metric's name and the time, which the registry and Date.parse need as
// strings); the value is read digit by digit into whole hundredths, the
// registry is shared read-only, and each sensor and metric has one
// running total, created the first time it appears.
const express = require('express');
const { METRICS, SENSORS } = require('../../labs/15-garbage-collector-churn/sensors');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const REQUIRED = ['sensor', 'metric', 'time', 'value'];
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
const REJECTED_SHOWN = 10;

// Read-only: nothing below writes to the registry, so every request can share it.
const sensors = new Map(Object.entries(SENSORS));
const metrics = new Map(Object.entries(METRICS));

const HASH = 35;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;

/** Whether the character at `i` is white space as String.prototype.trim sees it (the ASCII ones gateways write). */
const isSpace = (text, i) => {
  const c = text.charCodeAt(i);
  return c === 32 || c === 9 || c === 13 || c === 11 || c === 12 || c === 0xa0 || c === 0xfeff;
};

/**
 * A reading's value in whole hundredths (-12.5 → -1250), or NaN unless it
 * is an optional minus sign, 1 to 6 digits and at most two decimals.
 */
function hundredths(text, start, end) {
  let i = start;
  const negative = text.charCodeAt(i) === MINUS;
  if (negative) i++;
  let whole = 0;
  let digits = 0;
  for (; i < end && text.charCodeAt(i) !== DOT; i++) {
    const d = text.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9 || ++digits > 6) return NaN;
    whole = whole * 10 + d;
  }
  if (digits === 0) return NaN;
  let fraction = 0;
  let decimals = 0;
  if (i < end) {
    for (i++; i < end; i++) {
      const d = text.charCodeAt(i) - ZERO;
      if (d < 0 || d > 9 || ++decimals > 2) return NaN;
      fraction = fraction * 10 + d;
    }
    if (decimals === 0) return NaN;
    if (decimals === 1) fraction *= 10;
  }
  const value = whole * 100 + fraction;
  return negative ? -value : value;
}

/** The positions of a line's fields, trimmed: [start0, end0, start1, end1, …] in `bounds`; the number of fields. */
function fieldBounds(text, start, end, bounds) {
  let count = 0;
  let from = start;
  for (;;) {
    let comma = text.indexOf(',', from);
    if (comma === -1 || comma > end) comma = end;
    let a = from;
    let b = comma;
    while (a < b && isSpace(text, a)) a++;
    while (b > a && isSpace(text, b - 1)) b--;
    if (count < bounds.length / 2) {
      bounds[2 * count] = a;
      bounds[2 * count + 1] = b;
    }
    count++;
    if (comma === end) return count;
    from = comma + 1;
  }
}

/** The summary of one CSV batch, or { error } when it has no usable header. */
function summarise(text) {
  let columns = null;
  let bounds = null;
  const at = {}; // column index of each required field
  const totals = new Map(); // sensor id → Map(metric → running total)
  let accepted = 0;
  let rejected = 0;
  const rejectedLines = [];

  let lineNumber = 0;
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    lineNumber++;
    let a = start;
    let b = end;
    while (a < b && isSpace(text, a)) a++;
    while (b > a && isSpace(text, b - 1)) b--;
    const next = end + 1;
    if (a === b || text.charCodeAt(a) === HASH) {
      start = next;
      continue;
    }

    if (columns === null) {
      columns = text.slice(a, b).split(',').map((name) => name.trim());
      const missing = REQUIRED.filter((name) => !columns.includes(name));
      if (missing.length) return { error: `the header line has no ${missing.join(', ')} column` };
      for (const name of REQUIRED) at[name] = columns.indexOf(name);
      bounds = new Array(2 * columns.length).fill(0);
      start = next;
      continue;
    }

    const ok = fieldBounds(text, a, b, bounds) === columns.length && read(text, bounds, at, totals);
    if (ok) accepted++;
    else {
      rejected++;
      if (rejectedLines.length < REJECTED_SHOWN) rejectedLines.push(lineNumber);
    }
    start = next;
  }
  if (columns === null) return { error: 'the batch is empty: expected a header line and readings' };

  const series = [];
  for (const [sensor, byMetric] of totals) {
    for (const [metric, t] of byMetric) {
      series.push({
        sensor,
        metric,
        unit: metrics.get(metric).unit,
        count: t.count,
        min: t.min / 100,
        max: t.max / 100,
        sum: t.sum / 100,
        first: new Date(t.first).toISOString(),
        last: new Date(t.last).toISOString(),
      });
    }
  }
  series.sort((x, y) => (x.sensor === y.sensor ? (x.metric < y.metric ? -1 : 1) : x.sensor < y.sensor ? -1 : 1));
  return { accepted, rejected, rejectedLines, series };
}

/** Checks one line's reading against the registry and adds it to its running total; false if it is rejected. */
function read(text, bounds, at, totals) {
  const s = 2 * at.sensor;
  const m = 2 * at.metric;
  const ti = 2 * at.time;
  const v = 2 * at.value;

  const sensorId = text.slice(bounds[s], bounds[s + 1]);
  const sensor = sensors.get(sensorId);
  if (sensor === undefined) return false;
  const metricName = text.slice(bounds[m], bounds[m + 1]);
  const metric = metrics.get(metricName);
  if (metric === undefined || !sensor.metrics.includes(metricName)) return false;
  const time = text.slice(bounds[ti], bounds[ti + 1]);
  if (!TIME.test(time)) return false;
  const when = Date.parse(time);
  if (Number.isNaN(when)) return false;
  const value = hundredths(text, bounds[v], bounds[v + 1]);
  if (Number.isNaN(value) || value < metric.min * 100 || value > metric.max * 100) return false;

  let byMetric = totals.get(sensorId);
  if (byMetric === undefined) totals.set(sensorId, (byMetric = new Map()));
  const t = byMetric.get(metricName);
  if (t === undefined) {
    byMetric.set(metricName, { count: 1, min: value, max: value, sum: value, first: when, last: when });
  } else {
    t.count++;
    if (value < t.min) t.min = value;
    if (value > t.max) t.max = value;
    t.sum += value;
    if (when < t.first) t.first = when;
    if (when > t.last) t.last = when;
  }
  return true;
}

const app = express();

app.post('/readings', express.text({ type: ['text/csv', 'text/plain'], limit: '10mb' }), (req, res) => {
  if (typeof req.body !== 'string') return res.status(415).json({ error: 'send the batch as text/csv' });
  const summary = summarise(req.body);
  if (summary.error) return res.status(400).json({ error: summary.error });
  res.json(summary);
});

app.get('/health', (req, res) => {
  res.json({ status: 'ok' });
});

app.use((err, req, res, next) => {
  res.status(err.status || 500).json({ error: err.expose ? err.message : 'internal error' });
});

const server = app.listen(PORT, HOST, (err) => {
  if (err) throw err;
  const { port } = server.address();
  console.log(`Listening on http://${HOST}:${port} (pid ${process.pid})`);
});
