'use strict';
// The CSV batches lab 15's check posts, and the summary the walkthrough's
// contract says the app must answer for each. The check draws every batch
// afresh (a seeded generator, so that a run can be replayed from its seed)
// and computes the expected summary from what it drew, not by parsing the
// text it wrote: an app that answers from a cache of earlier answers meets
// batches it has never seen, and one that parses differently from the
// contract is caught on the lines where it does.
//
// A batch is one floor gateway's: the readings of that floor's ten
// sensors over a few minutes, in a column order the gateway's firmware
// chooses (sometimes with a column the service does not use), some lines
// with spaces around their fields or a Windows line end, comment and blank
// lines, and a share of readings the service must reject: a sensor the
// registry does not know, a metric the sensor's model does not measure, a
// value out of the metric's range or not a number with at most two
// decimals, a time that is not a UTC time, a line with a field too many
// or too few.

const { seededRandom } = require('../../../scripts/harness/seeded-random');
const { METRICS, METRIC_NAMES, SENSORS } = require('../sensors');

const REQUIRED = ['sensor', 'metric', 'time', 'value'];
const EXTRA_COLUMNS = ['battery', 'seq', 'rssi'];
const REJECTED_SHOWN = 10;
const FLOORS = [...new Set(Object.values(SENSORS).map((s) => `${s.building}-${s.floor}`))];
const sensorsOf = (floor) => Object.values(SENSORS).filter((s) => `${s.building}-${s.floor}` === floor);

/** Ways a reading is wrong, each with the line the gateway would write. */
const REJECTS = [
  // A sensor the registry does not know (a new one, not registered yet).
  (r, rand) => ({ ...r, sensor: `b${rand.int(5, 9)}-f${String(rand.int(0, 9)).padStart(2, '0')}-r${String(rand.int(1, 10)).padStart(2, '0')}` }),
  // A metric this sensor's model does not measure.
  (r, rand, sensor) => ({ ...r, metric: rand.pick(METRIC_NAMES.filter((m) => !sensor.metrics.includes(m))) || 'noise' }),
  // A metric nobody measures.
  (r) => ({ ...r, metric: 'voc' }),
  // Out of range, by a little.
  (r) => ({ ...r, value: formatValue(Math.round(METRICS[r.metric].max * 100) + 1 + (Math.abs(r.cents) % 50)) }),
  (r) => ({ ...r, value: formatValue(Math.round(METRICS[r.metric].min * 100) - 1 - (Math.abs(r.cents) % 50)) }),
  // Not a number with at most two decimals.
  (r, rand) => ({ ...r, value: rand.pick(['', 'NaN', '1e3', '21.375', '+21.5', '21.', '.5', '12,5', '0x1A', '--3']) }),
  // Not a UTC time as the gateways write it.
  (r, rand) => ({ ...r, time: rand.pick([r.time.replace('Z', ''), r.time.replace('T', ' '), r.time.replace(/-(\d\d)-/, '-13-'), r.time.replace(/T(\d\d)/, 'T25'), r.time.replace(/:(\d\d):/, ':61:'), '', 'yesterday']) }),
  // A field too many or too few.
  (r, rand) => ({ ...r, fieldsDelta: rand.pick([-1, 1]) }),
];

/** A value of `cents` hundredths as a gateway writes it: 21.5, 21.50, 21, -3.25… (never -0). */
function formatValue(cents, style = 0) {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100);
  const frac = abs % 100;
  if (frac === 0 && style === 0) return `${sign}${whole}`;
  if (frac % 10 === 0 && style !== 2) return `${sign}${whole}.${frac / 10}`;
  return `${sign}${whole}.${String(frac).padStart(2, '0')}`;
}

/** A UTC time as the gateways write it, with or without milliseconds. */
function formatTime(ms, withMillis) {
  const iso = new Date(ms).toISOString();
  return withMillis ? iso : iso.replace(/\.\d{3}Z$/, 'Z');
}

/**
 * One batch, drawn from `rand`.
 * @param {object} rand a seeded generator (seededRandom)
 * @param {object} [shape]
 * @param {number} [shape.readings=2000] reading lines
 * @param {number} [shape.rejectShare=0.03] the share of them the service must reject
 * @param {boolean} [shape.shuffle=true] columns in a random order (sometimes with an extra one)
 * @param {boolean} [shape.untidy=true] spaces around fields, Windows line ends, comments, blank lines
 * @returns {{text:string, expected:object, lines:number, readings:number}}
 */
function makeBatch(rand, { readings = 2000, rejectShare = 0.03, shuffle = true, untidy = true } = {}) {
  const floor = rand.pick(FLOORS);
  const sensors = sensorsOf(floor);
  let columns = [...REQUIRED];
  if (shuffle) {
    if (rand.next() < 0.5) columns.push(rand.pick(EXTRA_COLUMNS));
    columns = shuffled(rand, columns);
  }
  const start = Date.UTC(2026, rand.int(0, 11), rand.int(1, 28), rand.int(0, 23), rand.int(0, 59), rand.int(0, 59)) + rand.int(0, 999);
  const span = rand.int(60, 600) * 1000;
  const withMillis = rand.next() < 0.7;

  const out = [];
  const push = (line) => out.push(untidy && rand.next() < 0.05 ? `${line}\r` : line);
  if (untidy && rand.next() < 0.7) push(`# gateway gw-${floor.toLowerCase()} firmware 4.${rand.int(0, 9)}`);
  push(columns.join(untidy && rand.next() < 0.3 ? ', ' : ','));

  const totals = new Map();
  let accepted = 0;
  const rejectedLines = [];
  let rejected = 0;
  for (let i = 0; i < readings; i++) {
    if (untidy && rand.next() < 0.01) push(rand.next() < 0.5 ? '' : `# ${rand.int(1, 99)} readings buffered`);
    const sensor = rand.pick(sensors);
    const metric = rand.pick(sensor.metrics);
    const range = METRICS[metric];
    const cents = rand.int(Math.ceil(range.min * 100), Math.floor(range.max * 100));
    const ms = start + rand.int(0, span);
    const at = withMillis ? ms : ms - (ms % 1000);
    let record = { sensor: sensor.id, metric, cents, value: formatValue(cents, rand.int(0, 2)), time: formatTime(at, withMillis), fieldsDelta: 0 };
    const reject = rand.next() < rejectShare;
    if (reject) record = rand.pick(REJECTS)(record, rand, sensor);
    const cells = columns.map((name) => (name in record ? record[name] : String(rand.int(0, 100))));
    if (record.fieldsDelta > 0) cells.push(String(rand.int(0, 9)));
    if (record.fieldsDelta < 0) cells.pop();
    const spaced = untidy && rand.next() < 0.1;
    push(spaced ? cells.map((c) => (rand.next() < 0.5 ? ` ${c}` : `${c}\t`)).join(',') : cells.join(','));
    const lineNumber = out.length;
    if (reject) {
      rejected++;
      if (rejectedLines.length < REJECTED_SHOWN) rejectedLines.push(lineNumber);
      continue;
    }
    accepted++;
    const key = `${sensor.id}|${metric}`;
    const t = totals.get(key);
    if (!t) totals.set(key, { sensor: sensor.id, metric, count: 1, min: cents, max: cents, sum: cents, first: at, last: at });
    else {
      t.count++;
      t.min = Math.min(t.min, cents);
      t.max = Math.max(t.max, cents);
      t.sum += cents;
      t.first = Math.min(t.first, at);
      t.last = Math.max(t.last, at);
    }
  }
  if (untidy && rand.next() < 0.5) out.push('');
  const series = [...totals.values()]
    .sort((a, b) => (a.sensor === b.sensor ? (a.metric < b.metric ? -1 : 1) : a.sensor < b.sensor ? -1 : 1))
    .map((t) => ({
      sensor: t.sensor,
      metric: t.metric,
      unit: METRICS[t.metric].unit,
      count: t.count,
      min: t.min / 100,
      max: t.max / 100,
      sum: t.sum / 100,
      first: new Date(t.first).toISOString(),
      last: new Date(t.last).toISOString(),
    }));
  return { text: out.join('\n'), expected: { accepted, rejected, rejectedLines, series }, lines: out.length, readings };
}

function shuffled(rand, list) {
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = rand.int(0, i);
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

/** The check's generator for one run. */
const generator = (seed) => seededRandom(seed);

module.exports = { makeBatch, formatValue, formatTime, generator, REQUIRED, REJECTED_SHOWN };
