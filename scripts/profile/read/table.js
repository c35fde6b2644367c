'use strict';
// A plain fixed-width text table: profilers' summaries read best aligned.

function table(rows, header) {
  const all = header ? [header, ...rows] : rows;
  const widths = all[0].map((_, col) => Math.max(...all.map((r) => String(r[col]).length)));
  const line = (r) => '  ' + r.map((cell, col) => (col === 0 ? String(cell).padStart(widths[col]) : String(cell).padEnd(widths[col]))).join('  ').trimEnd();
  return [...(header ? [line(header)] : []), ...rows.map(line)].join('\n');
}

module.exports = { table };
