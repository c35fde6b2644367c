// The home page: what the workbook is, what you need, where to start, and
// the labs (from scripts/lib/labs.js via the workbook plugin). Served by
// `npm start`, it also shows the learner's progress from the local API.
import React from 'react';
import Layout from '@theme/Layout';
import Link from '@docusaurus/Link';
import Heading from '@theme/Heading';
import { useWorkbook } from '../lib/workbook';
import { useWorkbookApi } from '../lib/api';
import { formatNumber, formatWhen, marginText } from '../lib/format';
import styles from './index.module.css';

const STATE_TEXT = { 'not-started': 'not started', 'in-progress': 'in progress', passing: 'passing' };

/** "≥ 20.12" from the root package.json's engines field (">=20.12"). */
function nodeRequirement(engines) {
  const m = /^>=\s*([\d.]+)$/.exec(engines || '');
  return m ? `${m[1]} or newer` : engines || 'a current LTS';
}

function Progress({ state }) {
  if (!state) return <td>–</td>;
  const best = state.best?.headline;
  return (
    <td data-testid={`progress-${state.slug}`}>
      <span className={`${styles.state} ${styles[state.state]}`}>{STATE_TEXT[state.state] || state.state}</span>
      {best && (
        <div className={styles.best}>
          best: {best.label} {formatNumber(best.value, best.unit)} ({marginText(best)}), {formatWhen(state.best.at)}
        </div>
      )}
    </td>
  );
}

function LabTable({ labs, api }) {
  const withProgress = api.status === 'here';
  return (
    <div className={styles.tableWrap}>
      <table className={styles.labs}>
        <thead>
          <tr>
            <th>Lab</th>
            <th>You will learn</th>
            <th>Time</th>
            {withProgress && <th>Your progress</th>}
          </tr>
        </thead>
        <tbody>
          {labs.map((lab) => (
            <tr key={lab.slug}>
              <td>
                <span className={styles.labId}>{lab.id}</span>{' '}
                {lab.hasReadme ? <Link to={lab.permalink}>{lab.title}</Link> : <span>{lab.title}</span>}
                {!lab.hasReadme && <div className={styles.best}>walkthrough coming soon</div>}
              </td>
              <td className={styles.teaches}>{lab.teaches}</td>
              <td className={styles.time}>{lab.minutes} min</td>
              {withProgress && <Progress state={api.labs.find((s) => s.slug === lab.slug)} />}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export default function Home() {
  const { labs, nodeEngines } = useWorkbook();
  const api = useWorkbookApi();
  const first = labs.find((lab) => lab.hasReadme);
  const totalMinutes = labs.reduce((sum, lab) => sum + lab.minutes, 0);
  return (
    <Layout title="Home" description="Hands-on labs for finding and fixing performance problems in Node.js apps.">
      <header className={styles.hero}>
        <div className="container">
          <Heading as="h1" className={styles.title}>
            Node.js profiling workbook
          </Heading>
          <p className={styles.lead}>
            Hands-on labs for finding and fixing performance problems in Node.js apps. Each lab is a small, realistic app with one
            performance bug. You measure it, profile it, read the profile, fix the code, and prove the fix with a check that gives the
            same verdict on a 2-core CI box as on a 16-core laptop.
          </p>
          <div className={styles.actions}>
            {first && (
              <Link className="button button--primary button--lg" to={first.permalink}>
                Start with lab {first.id}
              </Link>
            )}
            <Link className="button button--secondary button--lg" to="/guide/how-checks-measure">
              How the checks measure
            </Link>
          </div>
        </div>
      </header>
      <main className="container">
        <section className={styles.facts}>
          <div>
            <Heading as="h2">What you need</Heading>
            <ul>
              <li>
                Node.js {nodeRequirement(nodeEngines)}; 22, 24 and 26 are supported too.
              </li>
              <li>git: the workbook recovers each lab's starter from its history.</li>
              <li>
                A terminal in the workbook's folder, after <code>npm ci</code>.
              </li>
              <li>
                About {Math.round(totalMinutes / 60 * 2) / 2} hours for all {labs.length} labs; each one stands alone.
              </li>
            </ul>
          </div>
          <div>
            <Heading as="h2">How a lab goes</Heading>
            <ol>
              <li>See the symptom and measure it.</li>
              <li>Profile the app and read the profile.</li>
              <li>Fix it, with hints if you want them.</li>
              <li>
                Prove it: <strong>Check my fix</strong> on the lab's page, or <code>npx workbook check &lt;lab&gt;</code>.
              </li>
            </ol>
          </div>
        </section>
        <section className={styles.labsSection}>
          <Heading as="h2">The labs</Heading>
          <LabTable labs={labs} api={api} />
          {api.status === 'absent' && (
            <p className={styles.note}>
              Run <code>npm start</code> in the workbook to open this site with your progress here and a Check my fix button on each lab.
            </p>
          )}
          {api.status === 'here' && (
            <p className={styles.note}>
              Your progress is what <code>npx workbook check</code> and Check my fix recorded on this machine, in{' '}
              <code>.workbook/progress.json</code>.
            </p>
          )}
        </section>
      </main>
    </Layout>
  );
}
