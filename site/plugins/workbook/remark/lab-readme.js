'use strict';
// Site-only touches to a lab's README (the file itself stays plain Markdown
// that reads the same on GitHub):
// - each hint of the "Hints" section becomes a collapsed <details>, so the
//   learner opens them one at a time instead of reading the answer by accident
//   (the raw file folds them all in one <details>, which the site drops);
// - "Verify" gets a pointer to the page's Check my fix panel;
// - a missing or misplaced standard section is reported at build time.

const path = require('node:path');
const { labs, SECTIONS } = require('../repo');
const { textOf } = require('./walk');

/** The lab whose README `filePath` is, or null. */
function labOfReadme(filePath) {
  if (!filePath || path.basename(filePath) !== 'README.md') return null;
  return labs.find((l) => path.resolve(l.readme) === path.resolve(filePath)) || null;
}

function hintNodes(list) {
  const count = list.children.length;
  return list.children.map((item, i) => ({
    type: 'workbookHint',
    data: { hName: 'details', hProperties: { className: ['workbook-hint'] } },
    children: [
      {
        type: 'workbookHintSummary',
        data: { hName: 'summary' },
        children: [{ type: 'text', value: `Hint ${i + 1} of ${count}${i === count - 1 ? ': nearly the answer' : ''}` }],
      },
      ...item.children,
    ],
  }));
}

/** A raw <details> wrapper's own lines (`<details>`, `<summary>…</summary>`, `</details>`). */
const isDetailsWrapper = (node) => node.type === 'html' && /^\s*(<details>\s*(<summary>[\s\S]*<\/summary>)?|<\/details>)\s*$/.test(node.value);

function collapseHints(tree, where) {
  const at = tree.children.findIndex((n) => n.type === 'heading' && n.depth === 2 && textOf(n).trim() === 'Hints');
  if (at < 0) return;
  for (let i = at + 1; i < tree.children.length; i++) {
    const node = tree.children[i];
    if (node.type === 'heading' && node.depth <= 2) break;
    // The raw file folds the whole list in one <details> (so that GitHub and
    // an editor's preview show none of it unasked): the site folds each hint
    // on its own instead.
    if (isDetailsWrapper(node)) {
      tree.children.splice(i, 1);
      i--;
      continue;
    }
    if (node.type === 'list' && node.ordered) {
      tree.children.splice(i, 1, {
        type: 'workbookHints',
        data: { hName: 'div', hProperties: { className: ['workbook-hints'] } },
        children: hintNodes(node),
      });
      return;
    }
  }
  throw new Error(`${where}: the "Hints" section has no numbered list. Write the hints as "1. …", "2. …" so the site can show them one at a time.`);
}

function pointToCheckPanel(tree) {
  const at = tree.children.findIndex((n) => n.type === 'heading' && n.depth === 2 && textOf(n).trim() === 'Verify');
  if (at < 0) return;
  tree.children.splice(at + 1, 0, {
    type: 'workbookVerifyPointer',
    data: { hName: 'p', hProperties: { className: ['workbook-verify-pointer'] } },
    children: [
      { type: 'text', value: 'On this site, ' },
      { type: 'link', url: '#check-my-fix', children: [{ type: 'strong', children: [{ type: 'text', value: 'Check my fix' }] }] },
      { type: 'text', value: ' at the end of the page runs the same check for you and draws its figures, when the workbook serves the site (' },
      { type: 'inlineCode', value: 'npm start' },
      { type: 'text', value: ').' },
    ],
  });
}

function reportSections(tree, where) {
  const found = tree.children.filter((n) => n.type === 'heading' && n.depth === 2).map((n) => textOf(n).trim());
  const missing = SECTIONS.filter((s) => !found.includes(s));
  const order = found.filter((s) => SECTIONS.includes(s));
  const expected = SECTIONS.filter((s) => order.includes(s));
  const problems = [];
  if (missing.length) problems.push(`no section ${missing.map((s) => `"${s}"`).join(', ')}`);
  if (order.join('|') !== expected.join('|')) problems.push(`sections out of the standard order (${SECTIONS.join(', ')})`);
  if (problems.length) console.warn(`[workbook] ${where}: ${problems.join('; ')}.`);
}

function labReadme() {
  return (tree, file) => {
    const lab = labOfReadme(file.path);
    if (!lab) return;
    const where = `labs/${lab.slug}/README.md`;
    reportSections(tree, where);
    collapseHints(tree, where);
    pointToCheckPanel(tree);
  };
}

module.exports = labReadme;
