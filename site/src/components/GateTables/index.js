// The per-lab parts of "How the checks measure", generated from what each
// lab's check declares (labs/<slug>/check/index.js: gates, settings,
// explain) and what its benches measured (check/margins.json), so the page
// names no lab and cannot drift from the checks.
import React from 'react';
import LabLink from '../LabLink';
import { useWorkbook } from '../../lib/workbook';
import { opWords, thresholdWithUnit } from '../../lib/gates';
import { benchesText, benchText, factorText, worstMargins } from '../../lib/margins';
import styles from './styles.module.css';

// The kinds of check a lab's explain.kind may name (scripts/checks/define-check.js), as the page's sections call them.
const KINDS = {
  calibrated: 'Calibrated on your machine',
  reference: 'Against the reference solution',
  'machine-independent': 'Independent of the machine',
  'fixed-delay': 'A delay the check sets',
};

/** Markdown the plugin rendered at build time from the workbook's own text (no raw HTML). */
function Html({ html, as: Tag = 'span' }) {
  return <Tag dangerouslySetInnerHTML={{ __html: html }} />;
}

function joinLinks(labs) {
  return labs.map((lab, i) => (
    <React.Fragment key={lab.slug}>
      {i > 0 && (i === labs.length - 1 ? ' and ' : ', ')}
      <LabLink lab={lab.id} />
    </React.Fragment>
  ));
}

/**
 * The labs whose check is of one kind. With `calibration`, a list of what t
 * is in each; otherwise one sentence naming them (nothing when there are none).
 */
export function LabsOfKind({ kind, calibration = false }) {
  if (!KINDS[kind]) throw new Error(`<LabsOfKind kind="${kind}">: the kinds are ${Object.keys(KINDS).join(', ')}.`);
  const labs = useWorkbook().labs.filter((lab) => lab.explain.kind === kind);
  if (!labs.length) return null;
  if (calibration) {
    return (
      <ul>
        {labs.map((lab) => (
          <li key={lab.slug}>
            <LabLink lab={lab.id} />: <Html html={lab.explain.calibrationHtml} />
          </li>
        ))}
      </ul>
    );
  }
  return (
    <p>
      {labs.length === 1 ? 'The lab judged this way: ' : 'The labs judged this way: '}
      {joinLinks(labs)}.
    </p>
  );
}

/** Renders nothing; fails the build when a lab's check is of a kind the page does not explain. */
export function EveryKindExplained({ kinds }) {
  const missing = useWorkbook().labs.filter((lab) => !kinds.includes(lab.explain.kind));
  if (missing.length) {
    const lab = missing[0];
    throw new Error(`${lab.check.path} is a check of kind "${lab.explain.kind}", which "How the checks measure" does not explain: add a section for it.`);
  }
  return null;
}

function SettingsList({ settings }) {
  const entries = Object.entries(settings);
  if (!entries.length) return <span className={styles.muted}>none</span>;
  return (
    <ul className={styles.settings}>
      {entries.map(([name, value]) => (
        <li key={name}>
          <code>{name}</code> {typeof value === 'number' ? value.toLocaleString('en-GB') : String(value)}
        </li>
      ))}
    </ul>
  );
}

/** Every lab's gates: what is measured, the threshold and which way it must lie, and the check's settings. */
export function GatesTable() {
  const { labs } = useWorkbook();
  return (
    <div className={styles.wrap}>
      <table>
        <thead>
          <tr>
            <th>Lab</th>
            <th>What is measured</th>
            <th>Threshold</th>
            <th>The check's settings</th>
          </tr>
        </thead>
        <tbody>
          {labs.flatMap((lab) =>
            lab.gates.map((gate, i) => (
              <tr key={`${lab.slug}-${gate.id}`} data-gate={`${lab.slug}/${gate.id}`}>
                {i === 0 && (
                  <td rowSpan={lab.gates.length}>
                    <LabLink lab={lab.id} />
                  </td>
                )}
                <td>
                  {gate.label}
                  {gate.starterMayFail && <div className={styles.muted}>the shipped starter fails it on some Node versions, not on others</div>}
                  {!gate.starterFails && !gate.starterMayFail && <div className={styles.muted}>a guard: the shipped starter passes it too</div>}
                </td>
                <td className={styles.nowrap}>
                  {opWords(gate)} <strong className="workbook-threshold">{thresholdWithUnit(gate)}</strong>
                </td>
                {i === 0 && (
                  <td rowSpan={lab.gates.length}>
                    <SettingsList settings={lab.settings} />
                  </td>
                )}
              </tr>
            )),
          )}
        </tbody>
      </table>
    </div>
  );
}

/** When each lab's check says "too noisy, rerun", grouped by the kind of check. */
export function NoiseRules() {
  const { labs } = useWorkbook();
  const kinds = Object.keys(KINDS).filter((kind) => labs.some((lab) => lab.explain.kind === kind));
  return (
    <ul>
      {kinds.map((kind) => (
        <li key={kind}>
          {KINDS[kind]}:
          <ul>
            {labs
              .filter((lab) => lab.explain.kind === kind)
              .map((lab) => (
                <li key={lab.slug}>
                  <LabLink lab={lab.id} />: <Html html={lab.explain.noiseHtml} />
                </li>
              ))}
          </ul>
        </li>
      ))}
    </ul>
  );
}

function labsWithMargins(labs) {
  return labs.map((lab) => ({ lab, rows: worstMargins(lab.gates, lab.margins) }));
}

function MarginCell({ side, found }) {
  if (!found) return <td className={styles.muted}>not recorded</td>;
  const where = found.right ? (side === 'starter' ? 'past' : 'inside') : side === 'starter' ? 'inside' : 'past';
  return (
    <td className={found.right ? (found.margin < 2 ? styles.tight : undefined) : styles.wrong}>
      <strong>
        {factorText(found.margin)} {where}
      </strong>
      <div className={styles.muted}>{benchText(found.bench)}</div>
    </td>
  );
}

/** Per gate and side, the worst run of every bench recorded in the lab's check/margins.json. */
export function MarginsTable() {
  const { labs } = useWorkbook();
  const measured = labsWithMargins(labs);
  return (
    <>
      <div className={styles.wrap}>
        <table>
          <thead>
            <tr>
              <th>Lab</th>
              <th>Gate</th>
              <th>Shipped starter, worst run</th>
              <th>Reference solution, worst run</th>
            </tr>
          </thead>
          <tbody>
            {measured.flatMap(({ lab, rows }) =>
              rows.map((row, i) => {
                const gate = lab.gates.find((g) => g.id === row.id);
                return (
                  <tr key={`${lab.slug}-${row.id}`} data-margin={`${lab.slug}/${row.id}`}>
                    {i === 0 && (
                      <td rowSpan={rows.length}>
                        <LabLink lab={lab.id} />
                      </td>
                    )}
                    <td>
                      {gate.label}, {opWords(gate)} {thresholdWithUnit(gate)}
                    </td>
                    {gate.starterFails ? (
                      <MarginCell side="starter" found={row.starter} />
                    ) : gate.starterMayFail ? (
                      <td className={styles.muted}>not part of the starter's verdict: it fails this gate on some Node versions, not on others</td>
                    ) : (
                      <td className={styles.muted}>a guard: the starter passes it too</td>
                    )}
                    <MarginCell side="solution" found={row.solution} />
                  </tr>
                );
              }),
            )}
          </tbody>
        </table>
      </div>
      <details className={styles.benches}>
        <summary>The recorded benches</summary>
        <ul>
          {labs.map((lab) => (
            <li key={lab.slug}>
              <LabLink lab={lab.id} />
              {lab.margins ? (
                <>. {benchesText(lab.margins).join('. ')}.</>
              ) : (
                ': no margins recorded yet.'
              )}
            </li>
          ))}
        </ul>
      </details>
    </>
  );
}

/**
 * One or two sentences about the recorded margins, computed from them: did
 * every run land on its side, and which gate came closest.
 */
export function MarginSummary() {
  const { labs } = useWorkbook();
  const sides = labsWithMargins(labs).flatMap(({ lab, rows }) =>
    rows.flatMap((row) =>
      ['starter', 'solution']
        .filter((side) => row[side] && (side === 'solution' || lab.gates.find((g) => g.id === row.id).starterFails))
        .map((side) => ({ lab, gate: lab.gates.find((g) => g.id === row.id), side, ...row[side] })),
    ),
  );
  if (!sides.length) return <p>No lab has margins recorded in its <code>check/margins.json</code> yet.</p>;
  const wrong = sides.filter((s) => !s.right);
  const right = sides.filter((s) => s.right).sort((a, b) => a.margin - b.margin);
  const atLeast3 = right.filter((s) => s.margin >= 3).length;
  // The gates with a side that came within 2× of its threshold, or else the closest one.
  const tight = right.filter((s) => s.margin < 2);
  const named = tight.length ? tight : right.slice(0, 1);
  const byGate = [];
  for (const s of named) {
    const group = byGate.find((g) => g.lab === s.lab && g.gate === s.gate);
    if (group) group.sides.push(s);
    else byGate.push({ lab: s.lab, gate: s.gate, sides: [s] });
  }
  const sideText = (s) =>
    `${s.side === 'starter' ? 'the shipped starter' : 'the reference solution'} ${factorText(s.margin)} ${s.side === 'starter' ? 'past' : 'inside'} (${benchText(s.bench)})`;
  return (
    <p data-testid="margin-summary">
      {wrong.length === 0
        ? 'In every recorded run, the shipped starter landed past each threshold it must fail and the reference solution inside every threshold. '
        : `${wrong.length} of ${sides.length} gate sides had a run on the wrong side of its threshold; the table marks them. `}
      {atLeast3} of {sides.length} gate sides kept at least 3× in their worst run.{' '}
      {byGate.length > 0 && (tight.length ? 'Within 2× of the threshold in a worst run: ' : 'The closest worst run: ')}
      {byGate.map((g, i) => (
        <React.Fragment key={`${g.lab.slug}-${g.gate.id}`}>
          {i > 0 && '; '}
          <LabLink lab={g.lab.id} />, “{g.gate.label}”: {g.sides.map(sideText).join(', and ')}
        </React.Fragment>
      ))}
      {byGate.length > 0 && '.'}
    </p>
  );
}
