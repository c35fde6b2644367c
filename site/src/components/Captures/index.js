// "Measured on the workbook's machine": what `npm run capture` recorded for a
// lab (site/static/captures), so a learner can compare their figures with
// known ones. Says which Node, CPU and date they came from; renders nothing
// when the lab has no captures.
import React, { useEffect, useState } from 'react';
import useBaseUrl from '@docusaurus/useBaseUrl';
import LabCharts from '../LabCharts';
import Rich from '../Rich';
import { formatDate, formatNumber, marginText, needsText, withCode } from '../../lib/format';
import styles from './styles.module.css';

function MachineLine({ machine }) {
  if (!machine) return null;
  return (
    <p className={styles.machine} data-testid="capture-machine">
      Node {machine.node} on {machine.platform}, {machine.cpus} × {machine.cpuModel}
      {machine.date ? `, ${formatDate(machine.date)}` : ''}. Your machine's figures will differ; the verdicts should not.
    </p>
  );
}

/**
 * Starter and solution side by side, gate by gate. A run the check called
 * too noisy judged nothing: its figures past a threshold are shown as what
 * they are, not as a failed gate.
 */
function GateTable({ starter, solution }) {
  const ids = [...new Set([...(starter?.gates || []), ...(solution?.gates || [])].map((g) => g.id))];
  if (!ids.length) return null;
  const cell = (result, id) => {
    const gate = result?.gates?.find((g) => g.id === id);
    if (!gate) return <td>–</td>;
    const unjudged = !gate.pass && result.verdict === 'noisy';
    return (
      <td className={gate.pass ? styles.pass : unjudged ? styles.noisy : styles.fail} data-gate-cell={unjudged ? 'noisy' : gate.pass ? 'pass' : 'fail'}>
        {gate.pass ? '✓' : unjudged ? '?' : '✗'} {formatNumber(gate.value, gate.unit)}
        <div className={styles.small}>
          {needsText(gate)}; {marginText(gate)}
          {unjudged && '; this run was too noisy to judge (the check said rerun)'}
        </div>
      </td>
    );
  };
  return (
    <div className={styles.tableWrap}>
      <table className={styles.table}>
        <thead>
          <tr>
            <th>Measured</th>
            <th>Starter</th>
            <th>Reference solution</th>
          </tr>
        </thead>
        <tbody>
          {ids.map((id) => (
            <tr key={id}>
              <td>{(solution?.gates || starter?.gates).find((g) => g.id === id)?.label}</td>
              {cell(starter, id)}
              {cell(solution, id)}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A capture's title, with `commands` set as code. */
function Title({ text }) {
  return (
    <span>
      <Rich parts={withCode(text || '')} />
    </span>
  );
}

function TextCapture({ file }) {
  const url = useBaseUrl(`/${file.path}`);
  const [text, setText] = useState(null);
  useEffect(() => {
    const controller = new AbortController();
    fetch(url, { signal: controller.signal })
      .then((res) => (res.ok ? res.text() : Promise.reject(new Error(String(res.status)))))
      .then(setText)
      .catch((err) => err.name !== 'AbortError' && setText(`(could not load ${file.path})`));
    return () => controller.abort();
  }, [url, file.path]);
  return (
    <figure className={styles.capture}>
      <figcaption>
        <Title text={file.title} />
      </figcaption>
      {/* aria-busy until the text is in: it then pushes everything below it down the page. */}
      <pre className={styles.text} aria-busy={text === null}>
        {text ?? 'Loading…'}
      </pre>
    </figure>
  );
}

function PageCapture({ file }) {
  const url = useBaseUrl(`/${file.path}`);
  const [open, setOpen] = useState(false);
  return (
    <figure className={styles.capture}>
      <figcaption>
        <Title text={file.title} />
        <span className={styles.links}>
          <button type="button" className="button button--sm button--secondary" onClick={() => setOpen(!open)}>
            {open ? 'Hide' : 'Show it here'}
          </button>
          <a className="button button--sm button--link" href={url} target="_blank" rel="noopener">
            Open in a new tab
          </a>
        </span>
      </figcaption>
      {open &&
        (file.format === 'svg' ? (
          <img className={styles.svg} src={url} alt={file.title} />
        ) : (
          // The workbook's own report (e.g. Clinic.js Doctor's), self-contained and trusted.
          <iframe className={styles.frame} src={url} title={file.title} />
        ))}
    </figure>
  );
}

/** Where the captures were measured: as recorded, or else as the starter's check saw it. */
function machineOf(captures) {
  if (captures.machine) return captures.machine;
  const result = captures.results?.starter || captures.results?.solution;
  if (!result?.environment) return null;
  const { node, platform, cpus, cpuModel } = result.environment;
  return { node, platform, cpus, cpuModel, date: result.startedAt };
}

export default function Captures({ lab }) {
  const captures = lab.captures;
  if (!captures) return null;
  const { starter, solution } = captures.results || {};
  const runs = [
    { name: 'Starter', candidate: 'the starter', role: 'before', result: starter },
    { name: 'Reference solution', candidate: 'the reference solution, checked', role: 'after', result: solution },
  ].filter((run) => run.result);
  return (
    <div data-testid="captures">
      <MachineLine machine={machineOf(captures)} />
      <GateTable starter={starter} solution={solution} />
      <LabCharts lab={lab.slug} runs={runs} />
      {captures.files.map((file) =>
        file.format === 'text' ? <TextCapture key={file.path} file={file} /> : <PageCapture key={file.path} file={file} />,
      )}
    </div>
  );
}
