// "Check my fix": runs the lab's check on the learner's own app through the
// local workbook server (`npm start`), shows its progress live, then the
// verdict, every figure and the charts. Served statically (a trainer's
// copy), the page has no server to ask, and shows the command instead.
import React, { useCallback, useEffect, useRef, useState } from 'react';
import CodeBlock from '@theme/CodeBlock';
import CheckResult from '../CheckResult';
import { followCheck, startCheck, useWorkbookApi } from '../../lib/api';
import { formatDuration, formatWhen } from '../../lib/format';
import styles from './styles.module.css';

// Per lab: the last result in this browser (to chart the next one against),
// and a check still running (to pick it up again after leaving the page).
const lastKey = (slug) => `workbook:last-check:${slug}`;
const jobKey = (slug) => `workbook:running-check:${slug}`;

function readStored(storage, key) {
  try {
    return JSON.parse(storage.getItem(key));
  } catch {
    return null;
  }
}

function writeStored(storage, key, value) {
  try {
    if (value == null) storage.removeItem(key);
    else storage.setItem(key, JSON.stringify(value));
  } catch {
    // Private windows may refuse storage; the check still works.
  }
}

function ProgressLog({ lines }) {
  const box = useRef(null);
  useEffect(() => {
    if (box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [lines.length]);
  return (
    <pre className={styles.log} ref={box} aria-live="polite" data-testid="check-log">
      {lines.map((line, i) => (
        <div key={i} className={styles.line}>
          <span className={styles.stamp}>{line.elapsedMs == null ? '' : `${(line.elapsedMs / 1000).toFixed(1)} s`}</span>
          <span>{line.text}</span>
        </div>
      ))}
    </pre>
  );
}

function Command({ lab }) {
  return (
    <div className={styles.offline} data-testid="check-cli">
      <p>
        Check your fix from a terminal, in the workbook's folder. It measures <code>labs/{lab.slug}/app.js</code> as it is on disk and
        prints every figure against its threshold:
      </p>
      <CodeBlock language="sh">{`npx workbook check ${lab.id}`}</CodeBlock>
      <p className={styles.muted}>
        This copy of the site is not served by the workbook itself, so it cannot run the check for you. Run <code>npm start</code> in
        the workbook to open the site with a Check my fix button here.
      </p>
    </div>
  );
}

export default function CheckMyFix({ lab }) {
  const { slug } = lab;
  const api = useWorkbookApi();
  const [run, setRun] = useState({ phase: 'idle', lines: [], result: null, error: null, previous: null });
  const controller = useRef(null);

  const follow = useCallback(
    async (jobId, previous, { resumed = false } = {}) => {
      controller.current?.abort();
      controller.current = new AbortController();
      const say = (text, elapsedMs = null) => setRun((r) => ({ ...r, lines: [...r.lines, { text, elapsedMs }] }));
      setRun({ phase: 'running', lines: [], result: null, error: null, previous });
      writeStored(sessionStorage, jobKey(slug), jobId);
      try {
        await followCheck(jobId, {
          signal: controller.current.signal,
          onReplay: () => setRun((r) => ({ ...r, lines: [] })),
          onEvent: (event) => {
            if (event.type === 'queued') {
              // Position 1 starts at once: only a wait is worth a line.
              if (event.position > 1) {
                say(`Waiting for ${event.position - 1} other check(s) to finish: checks run one at a time so they do not distort each other.`);
              }
            } else if (event.type === 'started') {
              say(`Checking labs/${slug}/app.js`);
            } else if (event.type === 'progress') {
              say(event.text, event.elapsedMs);
            } else if (event.type === 'result') {
              writeStored(localStorage, lastKey(slug), event.result);
              writeStored(sessionStorage, jobKey(slug), null);
              setRun((r) => ({ ...r, phase: 'done', result: event.result }));
            } else if (event.type === 'error') {
              writeStored(sessionStorage, jobKey(slug), null);
              setRun((r) => ({ ...r, phase: 'failed', error: event.message }));
            }
          },
        });
      } catch (err) {
        if (err.name === 'AbortError') return;
        writeStored(sessionStorage, jobKey(slug), null);
        // A check from before the server restarted is simply gone: start afresh.
        if (resumed) setRun({ phase: 'idle', lines: [], result: null, error: null, previous: null });
        else setRun((r) => ({ ...r, phase: 'failed', error: err.message }));
      }
    },
    // Only the lab matters: the rest is state setters and storage.
    [slug],
  );

  // Pick up a check that was still running when the learner left the page,
  // or show the last result this browser saw.
  useEffect(() => {
    if (api.status !== 'here' || run.phase !== 'idle') return;
    const running = readStored(sessionStorage, jobKey(slug));
    const last = readStored(localStorage, lastKey(slug));
    if (running) follow(running, last, { resumed: true });
    else if (last) setRun((r) => ({ ...r, phase: 'remembered', result: last }));
    // Once, when the server is found; not again as the run's own state changes.
  }, [api.status]);

  useEffect(() => () => controller.current?.abort(), []);

  const onCheck = async () => {
    const last = readStored(localStorage, lastKey(slug));
    try {
      setRun({ phase: 'starting', lines: [], result: null, error: null, previous: null });
      const jobId = await startCheck(slug);
      await follow(jobId, last);
    } catch (err) {
      setRun((r) => ({ ...r, phase: 'failed', error: err.message }));
    }
  };

  if (api.status === 'absent') return <Command lab={lab} />;

  const busy = run.phase === 'starting' || run.phase === 'running';
  const typical = lab.captures?.results?.solution?.durationMs;
  const previous = run.previous ? { name: `Previous check (${formatWhen(run.previous.startedAt)})`, result: run.previous } : null;
  return (
    <div className={styles.panel}>
      <div className={styles.actions}>
        <button
          type="button"
          className={`button button--primary button--lg ${styles.button}`}
          onClick={onCheck}
          disabled={busy || api.status !== 'here'}
          data-testid="check-button"
        >
          {busy ? 'Checking…' : run.result ? 'Check again' : 'Check my fix'}
        </button>
        <p className={styles.muted}>
          {api.status === 'looking'
            ? 'Looking for the workbook server…'
            : (
              <>
                Runs <code>npx workbook check {lab.id}</code> on your <code>labs/{lab.slug}/app.js</code>, as saved on disk
                {typical ? `; about ${formatDuration(typical)} on the workbook's machine` : ''}. Keep other busy programs quiet meanwhile.
              </>
            )}
        </p>
      </div>
      {run.lines.length > 0 && <ProgressLog lines={run.lines} />}
      {run.phase === 'failed' && (
        <p className={styles.error} role="alert">
          The check could not run: {run.error}. Is <code>npm start</code> still running? Start it again, or run{' '}
          <code>npx workbook check {lab.id}</code> in a terminal.
        </p>
      )}
      {run.phase === 'remembered' && run.result && (
        <p className={styles.muted}>Your last check in this browser, {formatWhen(run.result.startedAt)}:</p>
      )}
      {run.result && (
        <CheckResult result={run.result} previous={run.phase === 'done' ? previous : null} states={api.status === 'here' ? api.labs : null} />
      )}
    </div>
  );
}
