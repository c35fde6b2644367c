'use strict';
// The ingestion front of a building-monitoring platform. Every few seconds
// each floor's gateway posts the readings its sensors took, as a CSV
// batch (POST /readings); the service checks every reading against the
// sensor registry and the metric's plausible range, and answers a summary
// per sensor and metric: what the gateway logs, what the dashboards chart,
// and what tells the site team which readings it rejected. The columns
// come in whatever order the gateway's firmware writes them: the header
// line names them.
const express = require('express');
const { METRICS, SENSORS } = require('./sensors');

const HOST = process.env.HOST || '127.0.0.1';
const PORT = Number(process.env.PORT ?? 3000);

const REQUIRED = ['sensor', 'metric', 'time', 'value'];
// A UTC time as the gateways write it: 2026-11-26T09:26:53Z or 2026-11-26T09:26:53.589Z.
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
// A reading: an optional minus sign, digits, at most two decimals.
const VALUE = /^-?\d{1,6}(\.\d{1,2})?$/;
// The line numbers of the first rejected readings, for the gateway's log.
const REJECTED_SHOWN = 10;

const round2 = (x) => Math.round(x * 100) / 100;

/** Whether a record (an object of the line's fields) is a reading the registry accepts. */
function isValid(record, registry) {
  const sensor = registry.sensors[record.sensor];
  const metric = registry.metrics[record.metric];
  if (!sensor || !metric || !sensor.metrics.includes(record.metric)) return false;
  if (!TIME.test(record.time) || Number.isNaN(Date.parse(record.time))) return false;
  if (!VALUE.test(record.value)) return false;
  const value = Number(record.value);
  return value >= metric.min && value <= metric.max;
}

/** The readings of one CSV batch and the lines it rejected, or { error } when it has no usable header. */
function parseBatch(text) {
  // Each request gets its own copy of the registry: nothing a request does
  // can change what the next one checks against.
  const registry = JSON.parse(JSON.stringify({ sensors: SENSORS, metrics: METRICS }));

  const lines = text
    .split('\n')
    .map((line, i) => ({ number: i + 1, text: line.trim() }))
    .filter((line) => line.text !== '' && !line.text.startsWith('#'));
  if (lines.length === 0) return { error: 'the batch is empty: expected a header line and readings' };

  const [header, ...rows] = lines;
  const columns = header.text.split(',').map((name) => name.trim());
  const missing = REQUIRED.filter((name) => !columns.includes(name));
  if (missing.length) return { error: `the header line has no ${missing.join(', ')} column` };

  const records = rows.map((line) => {
    const cells = line.text.split(',').map((cell) => cell.trim());
    const fields = Object.fromEntries(columns.map((name, i) => [name, cells[i]]));
    return { ...fields, line: line.number, cells: cells.length };
  });

  const checked = records.map((r) => ({ ...r, ok: r.cells === columns.length && isValid(r, registry) }));
  const rejected = checked.filter((r) => !r.ok);

  const readings = checked
    .filter((r) => r.ok)
    .map((r) => ({
    ...r,
    value: Number(r.value),
    at: new Date(r.time),
    key: `${r.sensor}|${r.metric}`,
  }));

  return { readings, rejected };
}

/** The answer to the gateway: a summary per sensor and metric. */
function summarise({ readings, rejected }) {
  const groups = readings.reduce((acc, r) => {
    (acc[r.key] ||= []).push(r);
    return acc;
  }, {});

  const series = Object.entries(groups)
    .map(([key, list]) => {
      const [sensor, metric] = key.split('|');
      const values = list.map((r) => r.value);
      const times = list.map((r) => r.at.getTime()).sort((a, b) => a - b);
      return {
        sensor,
        metric,
        unit: METRICS[metric].unit,
        count: values.length,
        min: Math.min(...values),
        max: Math.max(...values),
        sum: round2(values.reduce((a, b) => a + b, 0)),
        first: new Date(times[0]).toISOString(),
        last: new Date(times[times.length - 1]).toISOString(),
      };
    })
    .sort((a, b) => (a.sensor === b.sensor ? (a.metric < b.metric ? -1 : 1) : a.sensor < b.sensor ? -1 : 1));

  return {
    accepted: readings.length,
    rejected: rejected.length,
    rejectedLines: rejected.slice(0, REJECTED_SHOWN).map((r) => r.line),
    series,
  };
}

const app = express();

app.post('/readings', express.text({ type: ['text/csv', 'text/plain'], limit: '10mb' }), (req, res) => {
  if (typeof req.body !== 'string') return res.status(415).json({ error: 'send the batch as text/csv' });
  const batch = parseBatch(req.body);
  if (batch.error) return res.status(400).json({ error: batch.error });
  res.json(summarise(batch));
});

app.get('/health', (req, res) => {
  res.json({ status: 'ok' });
});

// A body that is too large, or cannot be read, gets a JSON error too.
app.use((err, req, res, next) => {
  res.status(err.status || 500).json({ error: err.expose ? err.message : 'internal error' });
});

const server = app.listen(PORT, HOST, (err) => {
  if (err) throw err; // e.g. EADDRINUSE: another app is on this port
  const { port } = server.address();
  console.log(`Listening on http://${HOST}:${port} (pid ${process.pid})`);
});
