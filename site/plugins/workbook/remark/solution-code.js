'use strict';
// A walkthrough keeps the reference fix's code out of its own text (a
// learner reads labs/NN/README.md raw, in an editor or a terminal): it names
// the lines in a solution-code directive, an HTML comment, and this plugin
// expands it at build time into a folded block of those lines, read from
// solutions/ and numbered as in the file. The directive's format, and the
// pin that makes a changed file fail the build, are in
// scripts/lib/solution-code.js (shared with `npx workbook dev check`).

const path = require('node:path');
const { ROOT, repoPath } = require('../repo');
const { walk } = require('./walk');

const { parseDirectives, resolveExcerpt } = require(path.join(ROOT, 'scripts', 'lib', 'solution-code.js'));

/** "The fix: `hashPassword` and `/auth`" as mdast inline nodes. */
function inline(text) {
  return text
    .split(/(`[^`]+`)/)
    .filter(Boolean)
    .map((part) => (part.startsWith('`') ? { type: 'inlineCode', value: part.slice(1, -1) } : { type: 'text', value: part }));
}

function expand(node, where) {
  const [directive] = parseDirectives(node.value);
  if (directive.problems.length) throw new Error(`${where}: ${directive.problems.join('; ')}`);
  const children = [
    {
      type: 'workbookSolutionSummary',
      data: { hName: 'summary' },
      children: inline(directive.summary),
    },
  ];
  for (const excerpt of directive.excerpts) {
    const resolved = resolveExcerpt(ROOT, excerpt);
    if (!resolved.ok) throw new Error(`${where}: solution-code: ${resolved.problem}`);
    if (excerpt.caption) children.push({ type: 'paragraph', children: inline(excerpt.caption) });
    children.push({
      type: 'code',
      lang: 'js',
      meta: `title="${excerpt.path}" showLineNumbers=${resolved.from}`,
      value: resolved.lines.join('\n'),
    });
  }
  return {
    type: 'workbookSolutionCode',
    data: { hName: 'details', hProperties: { className: ['workbook-solution-code'] } },
    children,
  };
}

function solutionCode() {
  return (tree, file) => {
    const source = file.path ? repoPath(file.path) : 'a page';
    walk(tree, 'html', (node, index, parent) => {
      if (!parent || !/^<!--\s*solution-code:/.test(node.value)) return;
      const where = `${source}, line ${node.position ? node.position.start.line : '?'}`;
      parent.children.splice(parent.children.indexOf(node), 1, expand(node, where));
    });
  };
}

module.exports = solutionCode;
