// The lab's files at the end of its page, read from the repository at build
// time: the shipped starter (what the learner edits), the check that judges
// it, and, behind a spoiler, the reference solution as a diff of the starter.
import React, { useEffect, useRef, useState } from 'react';
import CodeBlock from '@theme/CodeBlock';
import useBrokenLinks from '@docusaurus/useBrokenLinks';
import { useLocation } from '@docusaurus/router';
import DiffView from '../DiffView';
import styles from './styles.module.css';

function sizeOf(bytes) {
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`;
}

function FileBlock({ file }) {
  return (
    <>
      <CodeBlock language={file.language || 'js'} title={file.path} showLineNumbers>
        {file.content}
      </CodeBlock>
      {file.omittedLines > 0 && (
        <p className={styles.note}>
          The first lines only: {file.omittedLines} more lines ({sizeOf(file.bytes)} in all) follow in <code>{file.path}</code>.
        </p>
      )}
    </>
  );
}

/** A <details> that also opens when the page's URL points at it (e.g. #check). */
function Collapsible({ id, summary, children, openOnHash = true }) {
  const { hash } = useLocation();
  const [open, setOpen] = useState(false);
  const details = useRef(null);
  useBrokenLinks().collectAnchor(id);
  useEffect(() => {
    if (openOnHash && hash === `#${id}`) setOpen(true);
  }, [hash, id, openOnHash]);
  // A click on the summary before React took over the static HTML opens the
  // <details> with no handler to hear it: the learner would see it open and
  // empty. Once hydrated, take the element's own state.
  useEffect(() => {
    if (details.current?.open) setOpen(true);
  }, []);
  return (
    <details ref={details} id={id} className={styles.collapsible} open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>{summary}</summary>
      {/* Rendered only once opened: a spoiler must not be a scroll away, and big files cost nothing until wanted. */}
      {open && <div className={styles.body}>{children}</div>}
    </details>
  );
}

function Solution({ lab }) {
  const [view, setView] = useState('diff');
  const { solution } = lab;
  return (
    <Collapsible id="solution" openOnHash={false} summary={<span className={styles.spoiler}>Show the reference solution — spoils the lab</span>}>
      <p>
        The reference fix, <code>{solution.path}</code>, compared with the shipped starter. Try the hints first: the lab teaches the
        finding, not the typing.
      </p>
      <div className={styles.tabs} role="tablist">
        {[
          ['diff', `Changes from the starter (+${solution.diff.added} −${solution.diff.removed})`],
          ['file', 'Whole file'],
        ].map(([key, label]) => (
          <button
            key={key}
            type="button"
            role="tab"
            aria-selected={view === key}
            className={`button button--sm ${view === key ? 'button--primary' : 'button--secondary'}`}
            onClick={() => setView(key)}
          >
            {label}
          </button>
        ))}
      </div>
      {view === 'diff' ? <DiffView diff={solution.diff} to={solution.path} /> : <FileBlock file={{ ...solution, language: 'js' }} />}
    </Collapsible>
  );
}

export default function LabFiles({ lab }) {
  useBrokenLinks().collectAnchor('starter');
  const [app, ...others] = lab.starterFiles;
  return (
    <>
      <div id="starter">
        <p>
          The app as shipped. Edit your copy, <code>{app.path}</code>, in place; <code>npx workbook reset {lab.id}</code> puts this
          version back (yours is backed up first).
        </p>
        <FileBlock file={app} />
        {others.map((file) => (
          <Collapsible key={file.path} id={`file-${file.path.replace(/[^\w]+/g, '-')}`} summary={<code>{file.path}</code>}>
            <FileBlock file={file} />
          </Collapsible>
        ))}
      </div>
      <Collapsible
        id="check"
        summary={
          <span>
            The check that judges it: <code>{lab.check.path}</code>
          </span>
        }
      >
        <FileBlock file={{ ...lab.check, language: 'js' }} />
      </Collapsible>
      <Solution lab={lab} />
    </>
  );
}
