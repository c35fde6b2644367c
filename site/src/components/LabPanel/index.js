// What a lab page has beyond its README: Check my fix, the figures measured
// on the workbook's machine, and the lab's files. Rendered after the README
// by the DocItem/Content wrapper; its headings join the page's table of
// contents through labTocEntries().
import React from 'react';
import Heading from '@theme/Heading';
import CheckMyFix from '../CheckMyFix';
import Captures from '../Captures';
import LabFiles from '../LabFiles';
import styles from './styles.module.css';

/** The panel's sections, for the table of contents. */
export function labTocEntries(lab) {
  return [
    { value: 'Check my fix', id: 'check-my-fix', level: 2 },
    ...(lab.captures ? [{ value: "Measured on the workbook's machine", id: 'measured', level: 2 }] : []),
    { value: "The lab's files", id: 'files', level: 2 },
  ];
}

export default function LabPanel({ lab }) {
  return (
    <div className={`${styles.panel} markdown`} data-testid="lab-panel">
      <section className={styles.check}>
        <Heading as="h2" id="check-my-fix">
          Check my fix
        </Heading>
        <CheckMyFix lab={lab} />
      </section>
      {lab.captures && (
        <section>
          <Heading as="h2" id="measured">
            Measured on the workbook's machine
          </Heading>
          <p>
            The lab's check on the shipped starter and on the reference solution, and the tools' output from the walkthrough, captured
            with <code>npm run capture</code>.
          </p>
          <Captures lab={lab} />
        </section>
      )}
      <section>
        <Heading as="h2" id="files">
          The lab's files
        </Heading>
        <LabFiles lab={lab} />
      </section>
    </div>
  );
}
