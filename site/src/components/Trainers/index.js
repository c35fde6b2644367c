// The per-lab parts of the trainers' page, generated from the lab list
// (labs/labs.json) and each lab's notes for trainers
// (labs/<slug>/check/trainers.md, rendered by the workbook plugin), so the
// page names no lab.
import React from 'react';
import LabLink from '../LabLink';
import { useWorkbook } from '../../lib/workbook';
import { clockText, planAgenda } from '../../lib/agenda';
import styles from './styles.module.css';

const BLOCKS = {
  setup: () => (
    <>
      Setup: <code>npm ci</code>, <code>npm test</code>, <code>npm start</code>
    </>
  ),
  break: () => 'Break',
  lunch: () => 'Lunch',
  'wrap-up': () => 'Wrap-up: what each profiler showed, and when to reach for which',
};

/** How long the day is, in words: "a half day" up to 4¼ h, "a full day" up to 8½ h. */
function dayWords(total) {
  if (total <= 255) return 'a half day';
  if (total <= 510) return 'a full day';
  return 'more than a day: split it over two';
}

/** The agenda table, timed from each lab's minutes, with setup, breaks, lunch when it is a full day, and wrap-up. */
export function Agenda() {
  const { labs } = useWorkbook();
  const { blocks, total } = planAgenda(labs);
  return (
    <>
      <p>
        The {labs.length} labs take {clockText(total)} h with setup, breaks and wrap-up: {dayWords(total)}. Each lab stands alone, so a
        shorter session can pick any of them; the times are what a learner new to the tools needs.
      </p>
      <div className={styles.wrap}>
        <table data-testid="agenda">
          <thead>
            <tr>
              <th>Start</th>
              <th>Block</th>
              <th>Time</th>
            </tr>
          </thead>
          <tbody>
            {blocks.map((block) => (
              <tr key={`${block.kind}-${block.start}`} data-kind={block.kind}>
                <td>{clockText(block.start)}</td>
                <td>{block.kind === 'lab' ? <LabLink lab={block.lab.id} /> : BLOCKS[block.kind]()}</td>
                <td className={styles.nowrap}>{block.minutes} min</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** Markdown the plugin rendered at build time from the workbook's own files (no raw HTML). */
function Html({ html, className }) {
  return <div className={className} dangerouslySetInnerHTML={{ __html: html }} />;
}

/** Each lab's moment worth showing on the projector (its notes' '## Demo'). */
export function Demos() {
  const labs = useWorkbook().labs.filter((lab) => lab.trainers);
  return (
    <ul className={styles.demos}>
      {labs.map((lab) => (
        <li key={lab.slug} data-lab={lab.slug}>
          <strong>
            <LabLink lab={lab.id} />:
          </strong>{' '}
          <Html html={lab.trainers.demoHtml} className={styles.inline} />
        </li>
      ))}
    </ul>
  );
}

/** What learners trip over, lab by lab (its notes' '## Pitfalls'). */
export function Pitfalls() {
  const labs = useWorkbook().labs.filter((lab) => lab.trainers);
  return labs.map((lab) => (
    <section key={lab.slug} data-lab={lab.slug}>
      <h3>
        <LabLink lab={lab.id} />
      </h3>
      <Html html={lab.trainers.pitfallsHtml} />
    </section>
  ));
}
