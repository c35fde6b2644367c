'use strict';
// A fenced code block whose title is a workbook path, e.g.
//
//   ```js title="solutions/<lab>/app.js"
//
// is an excerpt of that file. At build time its lines are looked up in the
// real file (the *shipped* starter for labs/… files) and the block is
// replaced by the file's own lines, numbered as in the file. A block that no
// longer matches its file fails the build: the walkthrough must never show
// code the workbook does not contain.

const { readRepoFile, repoPath } = require('../repo');
const { walk } = require('./walk');

// Top-level folders whose files a walkthrough may quote.
const QUOTABLE = /^(labs|solutions|scripts|test)\//;

function titleOf(meta) {
  const m = /(?:^|\s)title=(["'])(.*?)\1/.exec(meta || '');
  return m ? m[2] : null;
}

function indentOf(line) {
  return /^[ \t]*/.exec(line)[0].length;
}

/** Lines without trailing blanks or shared indentation: how two excerpts are compared. */
function canonical(lines) {
  const trimmed = lines.map((l) => l.replace(/\s+$/, ''));
  const indents = trimmed.filter((l) => l !== '').map(indentOf);
  const common = indents.length ? Math.min(...indents) : 0;
  return { lines: trimmed.map((l) => l.slice(common)), common };
}

/**
 * Where `excerpt` (lines) occurs contiguously in `fileLines`, ignoring
 * trailing whitespace and a difference in indentation of the whole block.
 * @returns {{start:number, lines:string[]}|null} 0-based start and the file's lines, dedented
 */
function findExcerpt(fileLines, excerpt) {
  const wanted = canonical(excerpt).lines;
  for (let start = 0; start + wanted.length <= fileLines.length; start++) {
    const candidate = canonical(fileLines.slice(start, start + wanted.length));
    if (candidate.lines.every((line, i) => line === wanted[i])) return { start, lines: candidate.lines };
  }
  return null;
}

/** How many of the excerpt's first lines match somewhere: where a drifted excerpt stops matching. */
function longestMatchingStart(fileLines, excerpt) {
  let best = 0;
  for (let n = 1; n <= excerpt.length; n++) {
    if (!findExcerpt(fileLines, excerpt.slice(0, n))) break;
    best = n;
  }
  return best;
}

function stripBlankEdges(lines) {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a].trim() === '') a++;
  while (b > a && lines[b - 1].trim() === '') b--;
  return lines.slice(a, b);
}

function codeExcerpts() {
  return (tree, file) => {
    const source = file.path ? repoPath(file.path) : 'a page';
    walk(tree, 'code', (node) => {
      const title = titleOf(node.meta);
      if (!title || !QUOTABLE.test(title)) return;
      const where = `${source}, line ${node.position ? node.position.start.line : '?'}`;
      let content;
      try {
        content = readRepoFile(title);
      } catch (err) {
        throw new Error(`${where}: the code block titled "${title}" quotes a file the site cannot read. ${err.message}`);
      }
      const excerpt = stripBlankEdges(node.value.split('\n'));
      if (excerpt.length === 0) throw new Error(`${where}: the code block titled "${title}" is empty.`);
      const found = findExcerpt(content.split('\n'), excerpt);
      if (!found) {
        const matched = longestMatchingStart(content.split('\n'), excerpt);
        throw new Error(
          `${where}: the code block titled "${title}" no longer matches that file: ` +
            `its line ${matched + 1}, "${excerpt[matched].trim()}", is not where it should be in ${title}` +
            `${title.startsWith('labs/') ? ' as shipped' : ''}. ` +
            'An excerpt must be lines of the file, in order and unbroken: copy them from the file again.',
        );
      }
      node.value = found.lines.join('\n');
      // Numbered as in the file, so "app.js:20" in a profile is line 20 here.
      node.meta = `${node.meta} showLineNumbers=${found.start + 1}`;
    });
  };
}

module.exports = codeExcerpts;
