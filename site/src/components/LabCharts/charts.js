// The chart.js side of LabCharts, loaded in the browser only. A lab's check
// definition lists its charts (`charts` in labs/<slug>/check/index.js); each
// is drawn by its kind, from the results' gates and series:
//   gate-bars           each listed gate's value against its threshold, per run
//   rounds              per-round throughput, yours against the reference (series.throughput)
//   heap-over-requests  heap after a forced GC, over requests (series.heap)
//   ceilings            a throughput (series[spec.series]) against the ceilings in series.ceilings
import React from 'react';
import {
  Chart as ChartJS,
  BarElement,
  CategoryScale,
  Legend,
  LinearScale,
  LineElement,
  LogarithmicScale,
  PointElement,
  Tooltip,
} from 'chart.js';
import { Bar, Line } from 'react-chartjs-2';
import { useColorMode } from '@docusaurus/theme-common';
import { formatNumber, needsText } from '../../lib/format';
import { useLab } from '../../lib/workbook';
import { CHART_KINDS } from './kinds';
import styles from './styles.module.css';

/**
 * Draws, across each bar, a dashed line at each of its marks: a threshold
 * or a ceiling belongs to the run it was measured in (t differs per run).
 */
const barMarks = {
  id: 'workbookBarMarks',
  afterDatasetsDraw(chart, _args, options) {
    const { ctx, scales } = chart;
    const y = scales.y;
    chart.data.datasets.forEach((dataset, d) => {
      if (!dataset.marks || !chart.isDatasetVisible(d)) return;
      chart.getDatasetMeta(d).data.forEach((bar, i) => {
        for (const mark of dataset.marks[i] || []) {
          if (!Number.isFinite(mark.value) || mark.value <= 0) continue;
          const py = y.getPixelForValue(mark.value);
          const half = bar.width / 2 + 6;
          ctx.save();
          ctx.strokeStyle = options.color;
          ctx.lineWidth = 2;
          ctx.setLineDash([5, 3]);
          ctx.beginPath();
          ctx.moveTo(bar.x - half, py);
          ctx.lineTo(bar.x + half, py);
          ctx.stroke();
          if (mark.label) {
            ctx.setLineDash([]);
            ctx.fillStyle = options.color;
            ctx.font = '11px system-ui, sans-serif';
            ctx.textAlign = 'left';
            ctx.textBaseline = 'bottom';
            ctx.fillText(mark.label, bar.x - half, py - 2);
          }
          ctx.restore();
        }
      });
    });
  },
};

ChartJS.register(BarElement, CategoryScale, Legend, LinearScale, LineElement, LogarithmicScale, PointElement, Tooltip, barMarks);

function palette(dark) {
  return dark
    ? { before: '#ff922b', after: '#51cf66', previous: '#9aa5b8', reference: '#a5b4fc', text: '#d0d4db', grid: 'rgba(255,255,255,0.10)', mark: '#f8f9fa' }
    : { before: '#d9480f', after: '#2b8a3e', previous: '#8792a2', reference: '#5c7cfa', text: '#3d4451', grid: 'rgba(0,0,0,0.08)', mark: '#212529' };
}

/** Log axes label 1, 3, 10, 30, 100…: chart.js's own choice crowds some decades. */
function logTick(value) {
  const mantissa = value / 10 ** Math.floor(Math.log10(value) + 1e-9);
  return Math.abs(mantissa - 1) < 1e-6 || Math.abs(mantissa - 3) < 1e-6 ? value.toLocaleString('en-GB') : '';
}

function baseOptions(colors, { yTitle, log = false, legend = true }) {
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    color: colors.text,
    // Rounds and checkpoints are separate measurements: straight segments, visible points.
    elements: { line: { tension: 0 }, point: { radius: 3 } },
    plugins: {
      legend: { display: legend, labels: { color: colors.text, boxWidth: 14 } },
      tooltip: { mode: 'index', intersect: false },
      workbookBarMarks: { color: colors.mark },
    },
    scales: {
      x: { ticks: { color: colors.text }, grid: { color: colors.grid } },
      y: {
        type: log ? 'logarithmic' : 'linear',
        beginAtZero: !log,
        ticks: { color: colors.text, ...(log ? { callback: logTick } : {}) },
        grid: { color: colors.grid },
        title: { display: Boolean(yTitle), text: yTitle, color: colors.text },
      },
    },
  };
}

const gateOf = (result, id) => (result.gates || []).find((g) => g.id === id);

/** Stretches the y axis so every bar and every dashed mark is in view. */
function fitMarks(options, datasets, { log }) {
  const values = datasets.flatMap((d) => [...d.data, ...(d.marks || []).flat().map((m) => m.value)]).filter((v) => Number.isFinite(v) && v > 0);
  if (!values.length) return options;
  const max = Math.max(...values);
  const min = Math.min(...values);
  options.scales.y.suggestedMax = log ? 10 ** Math.ceil(Math.log10(max * 1.05)) : max * 1.12;
  if (log) options.scales.y.suggestedMin = 10 ** Math.floor(Math.log10(min * 0.95));
  return options;
}

function Figure({ title, note, summary, children }) {
  return (
    <figure className={styles.chart}>
      <figcaption>
        {title}
        {note && <small>{note}</small>}
      </figcaption>
      <div className={styles.canvasBox} role="img" aria-label={`${title}. ${summary}`}>
        {children}
      </div>
    </figure>
  );
}

/**
 * Bars of gated figures per run, each with its own threshold dashed across
 * it. Log scale. Gates of one unit are drawn in it; gates of different
 * units (handshakes and milliseconds, a ratio and a latency) are each drawn
 * as a multiple of its own threshold, so one axis never mixes units: the
 * threshold is then 1 for every bar, and the tooltip gives the figure.
 */
function GateBars({ runs, spec, colors }) {
  const rows = spec.gates.filter(({ id }) => runs.some((run) => gateOf(run.result, id)));
  if (!rows.length) return null;
  const unitOf = (id) => gateOf(runs.find((run) => gateOf(run.result, id)).result, id).unit;
  const units = new Set(rows.map(({ id }) => unitOf(id)));
  const relative = units.size > 1;
  const datasets = runs.map((run) => ({
    label: run.name,
    data: rows.map(({ id }) => {
      const gate = gateOf(run.result, id);
      if (!gate) return null;
      return Math.max(relative ? gate.value / gate.threshold : gate.value, 0.01);
    }),
    marks: rows.map(({ id }) => [{ value: relative ? 1 : gateOf(run.result, id)?.threshold }]),
    backgroundColor: colors[run.role],
    borderRadius: 3,
  }));
  const summary = runs
    .map((run) => `${run.name}: ${rows.map(({ id, label }) => `${label} ${formatNumber(gateOf(run.result, id)?.value, gateOf(run.result, id)?.unit)}`).join(', ')}`)
    .join('; ');
  const options = fitMarks(baseOptions(colors, { yTitle: relative ? '× its threshold' : [...units][0], log: true }), datasets, { log: true });
  if (relative) {
    // The figure itself, in its own unit, where the bar shows its ratio.
    options.plugins.tooltip.callbacks = {
      label: (item) => {
        const gate = gateOf(runs[item.datasetIndex].result, rows[item.dataIndex].id);
        return gate ? `${item.dataset.label}: ${formatNumber(gate.value, gate.unit)} (${(gate.value / gate.threshold).toFixed(2)} × the threshold, ${formatNumber(gate.threshold, gate.unit)})` : item.dataset.label;
      },
    };
  }
  const note = relative
    ? 'Each bar is its figure divided by its own threshold (the dashed line at 1), so figures of different units share one axis; hover a bar for the figure itself. Log scale.'
    : 'Dashed line across each bar: its threshold in that run. Log scale, so that a bar 100× taller still leaves the short one readable.';
  return (
    <Figure title={spec.title} note={note} summary={summary}>
      <Bar data={{ labels: rows.map((r) => r.label), datasets }} options={options} />
    </Figure>
  );
}

/** A ceiling of series.ceilings as a dashed mark: a number (labelled by spec.ceilings or its name) or {value, label}. */
function ceilingMarks(ceilings, labels = {}) {
  return Object.entries(ceilings || {}).map(([name, c]) =>
    typeof c === 'number' ? { value: c, label: labels[name] || name } : { value: c?.value, label: c?.label || labels[name] || name },
  );
}

/** A throughput per run, with the ceilings measured in that run dashed across its bar. */
function AgainstCeilings({ runs, spec, colors }) {
  const withSeries = runs.filter((run) => Number.isFinite(run.result.series[spec.series]));
  if (!withSeries.length) return null;
  const unit = spec.unit || 'req/s';
  const data = {
    labels: withSeries.map((run) => run.name),
    datasets: [
      {
        label: unit,
        data: withSeries.map((run) => run.result.series[spec.series]),
        backgroundColor: withSeries.map((run) => colors[run.role]),
        borderRadius: 3,
        marks: withSeries.map((run) => ceilingMarks(run.result.series.ceilings, spec.ceilings)),
      },
    ],
  };
  const summary = withSeries.map((run) => `${run.name}: ${formatNumber(run.result.series[spec.series], unit)}`).join('; ');
  return (
    <Figure title={`${spec.title} (not judged)`} note={spec.note || 'Dashed: the ceilings measured on that machine, in the same run.'} summary={summary}>
      <Bar data={data} options={fitMarks(baseOptions(colors, { yTitle: unit, legend: false }), data.datasets, { log: false })} />
    </Figure>
  );
}

function RoundsAgainstReference({ run, colors, gateId }) {
  const t = run.result.series.throughput;
  if (!t || !Array.isArray(t.candidate)) return null;
  // The series says its unit (requests per CPU-second, say); req/s otherwise.
  const unit = t.unit || 'req/s';
  const gate = gateOf(run.result, gateId);
  const data = {
    labels: t.candidate.map((_, i) => `round ${i + 1}`),
    datasets: [
      { label: run.candidate || 'your app', data: t.candidate, borderColor: colors[run.role], backgroundColor: colors[run.role] },
      { label: 'reference solution, beside it', data: t.reference, borderColor: colors.reference, backgroundColor: colors.reference, borderDash: [6, 4] },
    ],
  };
  const note = gate
    ? `Median ratio ${formatNumber(gate.value, '×')}; it ${needsText(gate, '×')}.`
    : null;
  return (
    <Figure title={`${run.name}: ${unit} per round, against the reference`} note={note} summary={`${note || ''} Yours: ${t.candidate.map(Math.round).join(', ')}. Reference: ${t.reference.map(Math.round).join(', ')}.`}>
      <Line data={data} options={baseOptions(colors, { yTitle: unit })} />
    </Figure>
  );
}

function Rounds({ runs, spec, colors }) {
  return runs.map((run) => <RoundsAgainstReference key={run.name} run={run} colors={colors} gateId={spec.gate} />);
}

function HeapOverRequests({ runs, spec, colors }) {
  const withHeap = runs.filter((run) => Array.isArray(run.result.series.heap));
  if (!withHeap.length) return null;
  const data = {
    datasets: withHeap.map((run) => ({
      label: `${run.name} (${formatNumber(run.result.series.slope, 'B/request')})`,
      data: run.result.series.heap.map((p) => ({ x: p.requests, y: p.heapUsed / 1024 / 1024 })),
      borderColor: colors[run.role],
      backgroundColor: colors[run.role],
    })),
  };
  const options = baseOptions(colors, { yTitle: 'MB heap used after a forced GC' });
  options.scales.x = { ...options.scales.x, type: 'linear', title: { display: true, text: spec.x || 'requests served', color: colors.text } };
  options.scales.y.beginAtZero = true;
  options.plugins.tooltip = { intersect: false };
  const summary = withHeap.map((run) => `${run.name}: slope ${formatNumber(run.result.series.slope, 'B/request')}`).join('; ');
  return (
    <Figure title={spec.title} note="A leak climbs in a straight line; a fix stays flat. The check judges the slope." summary={summary}>
      <Line data={data} options={options} />
    </Figure>
  );
}

const DRAW = {
  'gate-bars': GateBars,
  rounds: Rounds,
  'heap-over-requests': HeapOverRequests,
  ceilings: AgainstCeilings,
};

for (const kind of CHART_KINDS) {
  if (!DRAW[kind]) throw new Error(`LabCharts: chart kind "${kind}" is listed in kinds.js but charts.js cannot draw it.`);
}

/** Says so, visibly, when a chart cannot be drawn (in production; in development it throws). */
function UnknownKind({ spec, slug }) {
  const text = `${slug} asks for a chart of kind ${JSON.stringify(spec.kind)}, which the site does not draw (it draws ${CHART_KINDS.join(', ')}).`;
  if (process.env.NODE_ENV !== 'production') throw new Error(text);
  return <p className={styles.unknown}>{text}</p>;
}

export default function Charts({ lab: slug, runs }) {
  const { colorMode } = useColorMode();
  const colors = palette(colorMode === 'dark');
  const lab = useLab(slug);
  if (!lab) throw new Error(`LabCharts: there is no lab "${slug}" in labs/labs.json.`);
  return (
    <div className={styles.grid}>
      {lab.charts.map((spec, i) => {
        const Draw = DRAW[spec.kind];
        const key = `${spec.kind}-${i}`;
        return Draw ? <Draw key={key} runs={runs} spec={spec} colors={colors} /> : <UnknownKind key={key} spec={spec} slug={slug} />;
      })}
    </div>
  );
}
