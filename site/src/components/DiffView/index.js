// A unified diff (computed at build time by plugins/workbook with the `diff`
// package), shown as a two-gutter listing: old and new line numbers, removed
// lines red, added lines green, unchanged context plain. Markers (+/−) are
// in the text too, so the colours are never the only cue.
import React from 'react';
import styles from './styles.module.css';

function rows(hunk) {
  let oldNo = hunk.oldStart;
  let newNo = hunk.newStart;
  return hunk.lines
    .filter((line) => !line.startsWith('\\')) // "\ No newline at end of file"
    .map((line) => {
      const mark = line[0];
      const text = line.slice(1);
      if (mark === '-') return { kind: 'removed', old: oldNo++, neu: '', mark: '−', text };
      if (mark === '+') return { kind: 'added', old: '', neu: newNo++, mark: '+', text };
      return { kind: 'context', old: oldNo++, neu: newNo++, mark: ' ', text };
    });
}

export default function DiffView({ diff, to }) {
  return (
    <div className={styles.diff} data-testid="solution-diff">
      <div className={styles.header}>
        <span>
          <code>{diff.from}</code> → <code>{to}</code>
        </span>
        <span>
          <span className={styles.addedCount}>+{diff.added}</span> <span className={styles.removedCount}>−{diff.removed}</span>
        </span>
      </div>
      <div className={styles.scroll}>
        <table className={styles.table}>
          {diff.hunks.map((hunk, h) => (
            <tbody key={h}>
              <tr className={styles.hunk}>
                <td colSpan={4}>
                  @@ starter lines {hunk.oldStart}–{hunk.oldStart + Math.max(hunk.oldLines - 1, 0)}, solution lines {hunk.newStart}–
                  {hunk.newStart + Math.max(hunk.newLines - 1, 0)} @@
                </td>
              </tr>
              {rows(hunk).map((row, i) => (
                <tr key={i} className={styles[row.kind]}>
                  <td className={styles.no}>{row.old}</td>
                  <td className={styles.no}>{row.neu}</td>
                  <td className={styles.mark}>{row.mark}</td>
                  <td className={styles.code}>{row.text || ' '}</td>
                </tr>
              ))}
            </tbody>
          ))}
        </table>
      </div>
    </div>
  );
}
