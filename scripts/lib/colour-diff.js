'use strict';
// A unified diff of two texts (jsdiff), coloured for a terminal.

const { createTwoFilesPatch } = require('diff');
const { green, red, cyan, dim } = require('./style');

function unifiedDiff(oldName, newName, oldText, newText, { context = 3 } = {}) {
  const norm = (t) => t.replace(/\r\n/g, '\n');
  const patch = createTwoFilesPatch(oldName, newName, norm(oldText), norm(newText), '', '', { context });
  // jsdiff adds an "Index:" / "=====" banner and a tab after each file name;
  // git-style output starts at --- and has neither.
  const lines = patch
    .split('\n')
    .filter((l) => !/^Index: |^=+$/.test(l))
    .map((l) => (/^(---|\+\+\+) /.test(l) ? l.trimEnd() : l));
  const changed = lines.some((l) => /^[+-](?![+-]{2} )/.test(l));
  const coloured = lines.map((l) => {
    if (l.startsWith('+++') || l.startsWith('---')) return dim(l);
    if (l.startsWith('@@')) return cyan(l);
    if (l.startsWith('+')) return green(l);
    if (l.startsWith('-')) return red(l);
    return l;
  });
  return { changed, text: coloured.join('\n').replace(/\n+$/, '') };
}

module.exports = { unifiedDiff };
