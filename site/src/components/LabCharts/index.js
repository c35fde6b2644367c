// Charts of check results. chart.js draws on a <canvas>, which only exists in
// the browser, so the charts load as a separate chunk after the page renders;
// the static HTML keeps a box of the same size meanwhile, and the numbers
// are always in the text around it.
import React, { Suspense, lazy } from 'react';
import BrowserOnly from '@docusaurus/BrowserOnly';
import styles from './styles.module.css';

const Charts = lazy(() => import('./charts'));

/**
 * @param {object} props
 * @param {string} props.lab the lab's slug
 * @param {Array<{name:string, role:'before'|'after'|'previous', result:object}>} props.runs
 *   results to draw side by side, oldest first; the role picks the colour
 *   (before: a failing app, after: a passing one, previous: an earlier check)
 */
export default function LabCharts({ lab, runs }) {
  const usable = runs.filter((run) => run.result && run.result.series && Object.keys(run.result.series).length);
  if (!usable.length) return null;
  const placeholder = <div className={styles.placeholder} aria-hidden="true" />;
  return (
    <BrowserOnly fallback={placeholder}>
      {() => (
        <Suspense fallback={placeholder}>
          <Charts lab={lab} runs={usable} />
        </Suspense>
      )}
    </BrowserOnly>
  );
}
