// One check result, read like the terminal's: the verdict, each measured
// figure against its threshold with what it means, the responses that were
// wrong, what was only informative, and what to do next. The charts follow.
import React from 'react';
import LabCharts from '../LabCharts';
import Rich from '../Rich';
import { useWorkbook } from '../../lib/workbook';
import { VERDICTS, formatDuration, formatNumber, marginText, needsText, nextStep } from '../../lib/format';
import styles from './styles.module.css';

function Verdict({ result }) {
  const verdict = VERDICTS[result.verdict] || VERDICTS.error;
  return (
    <div className={`${styles.verdict} ${styles[verdict.tone]}`} role="status" data-verdict={result.verdict}>
      <span className={styles.verdictWord}>{verdict.text}</span>
      <span className={styles.verdictWhat}>
        {result.verdict === 'pass' && 'Every response is right and every figure is within its threshold.'}
        {result.verdict === 'fail' &&
          (result.crash
            ? 'The app crashed during the check.'
            : result.responses.some((r) => !r.pass)
              ? 'A response is wrong.'
              : 'A figure is past its threshold.')}
        {result.verdict === 'noisy' && 'The machine was too busy to trust the figures.'}
        {result.verdict === 'error' && 'Nothing was judged.'}
      </span>
    </div>
  );
}

function Gate({ gate }) {
  return (
    <li className={`${styles.gate} ${gate.pass ? styles.gatePass : styles.gateFail}`} data-gate={gate.id}>
      <div className={styles.gateHead}>
        <span className={styles.mark} aria-label={gate.pass ? 'passed' : 'failed'}>{gate.pass ? '✓' : '✗'}</span>
        <span className={styles.gateLabel}>{gate.label}</span>
        <strong className={styles.gateValue}>{formatNumber(gate.value, gate.unit)}</strong>
      </div>
      <div className={styles.gateNeeds}>
        {needsText(gate)}
        {gate.scale && <span className={styles.muted}> = {gate.scale}</span>}{' '}
        <span className={gate.pass ? styles.marginPass : styles.marginFail}>({marginText(gate)})</span>
      </div>
      <div className={styles.gateMeaning}>{gate.meaning}</div>
    </li>
  );
}

function Responses({ responses }) {
  if (!responses.length) return null;
  const wrong = responses.filter((r) => !r.pass);
  return (
    <section className={styles.block}>
      <h4>
        Responses: {responses.length - wrong.length}/{responses.length} as expected {wrong.length === 0 && <span className={styles.ok}>✓</span>}
      </h4>
      {wrong.length > 0 && (
        <ul className={styles.cases}>
          {wrong.map((r) => (
            <li key={r.name}>
              <span className={styles.bad}>✗</span> {r.name}
              <div className={styles.caseDetail}>
                expected <code>{r.expected}</code>, got <code>{r.actual}</code>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Problem({ problem }) {
  return (
    <div className={styles.problem}>
      <p>{problem.message}</p>
      {problem.detail && (
        <>
          <p className={styles.muted}>The app printed:</p>
          <pre className={styles.detail}>{problem.detail}</pre>
        </>
      )}
    </div>
  );
}

/**
 * @param {object} props
 * @param {object} props.result a check result (scripts/checks/run-check.js)
 * @param {{name:string, result:object}} [props.previous] an earlier result to chart beside it
 * @param {object[]} [props.states] every lab's state from the workbook server (GET /api/labs), for
 *   the next step after a pass; omitted when unknown
 */
export default function CheckResult({ result, previous, states = null }) {
  const { labs } = useWorkbook();
  const env = result.environment || {};
  // Coloured by verdict: green only ever means a passing app.
  const runs = [
    ...(previous ? [{ name: previous.name, role: 'previous', result: previous.result }] : []),
    { name: previous ? 'This check' : 'Your app', role: result.verdict === 'pass' ? 'after' : 'before', result },
  ];
  return (
    <div className={styles.result} data-testid="check-result">
      <Verdict result={result} />
      <p className={styles.muted}>
        Checked <code>{result.app}</code> on Node {env.node}, {env.cpus} CPU{env.cpus === 1 ? '' : 's'} ({env.cpuModel}), in{' '}
        {formatDuration(result.durationMs || 0)}
        {result.attempts > 1 && `, ${result.attempts} attempts`}.
      </p>
      {[result.crash, result.error].filter(Boolean).map((problem) => (
        <Problem key={problem.message} problem={problem} />
      ))}
      <Responses responses={result.responses || []} />
      {result.gates?.length > 0 && (
        <section className={styles.block}>
          <h4>Measured</h4>
          <ul className={styles.gates}>
            {result.gates.map((gate) => (
              <Gate key={gate.id} gate={gate} />
            ))}
          </ul>
        </section>
      )}
      {result.info?.length > 0 && (
        <section className={styles.block}>
          <h4>For information (not judged)</h4>
          <ul className={styles.info}>
            {result.info.map((item) => (
              <li key={item.id}>
                {item.label}: <strong>{formatNumber(item.value, item.unit)}</strong>
                {item.text && <div className={styles.muted}>{item.text}</div>}
              </li>
            ))}
          </ul>
        </section>
      )}
      {result.noise?.length > 0 && (
        <p className={styles.noise}>The machine was too busy to judge: {result.noise.join('; ')}.</p>
      )}
      <p className={styles.next}>
        <strong>Next: </strong>
        <Rich parts={nextStep(result, labs, states)} />
      </p>
      <LabCharts lab={result.lab} runs={runs} />
    </div>
  );
}
