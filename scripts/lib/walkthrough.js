'use strict';
// Reads a lab's README.md (its walkthrough) with markdown-it: the sections,
// the hints, the code blocks and the commands it shows. One parser for the
// docs tests and for `workbook hint`, so the README stays the one source.
//
// What a walkthrough may contain, and how test/docs.test.js holds it to it:
//
// - A code block titled with a repository path (```js title="labs/…/app.js")
//   is an EXCERPT: its lines must appear, in order and unbroken, in that file
//   (for labs/… files, in the file as shipped). The site replaces it with the
//   file's own lines, numbered as in the file.
// - Any other JavaScript block (```js, ```javascript or ```cjs, no title) is
//   a COMPLETE PROGRAM, and the docs tests RUN it: written to a temporary
//   file inside the lab's folder (so require('express') and the lab's other
//   packages resolve; the file is removed afterwards), run from the
//   repository's root with the node running the tests and PORT=0 in its
//   environment. It passes when it exits with code 0 within 20 s (60 s for
//   one that spawns or forks a process: an app may prepare its data at its
//   first start). A snippet
//   that starts a server must close it itself (after fastify.inject, or after
//   one request to the port it got); one that shows a fragment belongs in
//   prose or in an excerpt, not in an untitled block. Output blocks are
//   ```text, commands ```sh: neither is run, except a command block marked
//   with the program that runs it as written (```sh test="labs/…/x.js"):
//   the docs tests run that program from the repository's root with the
//   block's text in WORKBOOK_DOCS_COMMAND and PORT=0, and it passes when the
//   program exits with code 0 within 90 s (e.g. lab 09's post-mortem
//   command, which needs a load from a second process to end).
// - A number in the prose that the code defines is named in a COUNTS
//   MARKER, an HTML comment at the end of its paragraph (GitHub and the site
//   show nothing), which gives each number as written and its source:
//       The check compares 28 responses and gates the ratio at 0.6×.<!-- counts: 28 = responses; 0.6 = threshold throughput-ratio -->
//   Each number must appear in that paragraph (or list item, or table: the
//   lines since the last blank one), and the docs tests compare it with its
//   source (see COUNT_SOURCES in test/docs.test.js): `responses` is how many
//   responses the lab's check judged in its captured result
//   (site/static/captures/index.json, for the starter and the solution
//   alike, leaving out a starter stopped by an early FAIL), `threshold
//   <gate>` a gate's threshold, `setting <name>` one of the check's settings
//   (`setting <name>.0` an item of one that is a list),
//   `standard-load <field>` a field of its standard load, `worst-margin
//   <gate> <side>` and `bench-median <gate> <side> <node major> [hogs]`
//   figures of the measured margins (check/margins.json), compared at the
//   precision written. A number a reader could check against the code and
//   that has no marker is a bug waiting to drift. (The older form, a
//   `<!-- count: … -->` directly after its number, sat mid-sentence in the
//   raw file: `dev check` asks for this one.)
// - The reference fix's code is NOT in the walkthrough: learners read the
//   README raw. A solution-code directive (an HTML comment naming pinned
//   lines of solutions/) stands in its place, and the site folds those
//   lines in at build time; dev check fails on solution code in plain sight
//   (scripts/lib/solution-code.js says what counts, and the directive's
//   format). Hints stop short of code too.
// - Raw HTML is allowed where GitHub and the site's CommonMark (rehype-raw)
//   both render it, e.g. <details><summary>…</summary>. Leave a blank line
//   after <summary>…</summary> and before </details>, or the Markdown
//   inside is swallowed as HTML (the docs tests look for that).

const fs = require('node:fs');
const MarkdownIt = require('markdown-it');

/** Every walkthrough has these second-level sections, in this order. */
const SECTIONS = ['The symptom', 'Measure', 'Profile', 'Read the profile', 'Hints', 'Fix', 'Verify', 'Why it works', 'Going further'];

const md = new MarkdownIt({ html: true });

/** Languages of the code blocks that are complete programs (when untitled). */
const RUNNABLE = new Set(['js', 'javascript', 'cjs']);

const COMMENT = /<!--[\s\S]*?-->/g;

/** Text without HTML comments (count markers), as terminals should show it. */
function withoutComments(text) {
  return text.replace(COMMENT, '');
}

function inlineText(token) {
  return (token.children || []).map((c) => c.content).join('');
}

/**
 * @returns {{title:string, sections:string[], hints:string[],
 *   codeBlocks:Array<{lang:string, title:string|null, content:string, line:number}>,
 *   inlineCode:Array<{text:string, line:number}>, links:Array<{href:string, line:number}>,
 *   htmlBlocks:Array<{content:string, line:number}>, counts:Array<{number:number|null, key:string, line:number}>}}
 */
function readWalkthrough(file) {
  const source = fs.readFileSync(file, 'utf8');
  const tokens = md.parse(source, {});
  const result = { title: '', sections: [], hints: [], codeBlocks: [], inlineCode: [], links: [], htmlBlocks: [], counts: countMarkers(source) };
  let section = null;
  let hintDepth = 0;
  let currentHint = null;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const line = t.map ? t.map[0] + 1 : null;
    if (t.type === 'heading_open') {
      const text = inlineText(tokens[i + 1]);
      if (t.tag === 'h1' && !result.title) result.title = text;
      if (t.tag === 'h2') {
        section = text;
        result.sections.push(text);
      }
    }
    if (section === 'Hints') {
      // The hints are the items of the section's first ordered list.
      if (t.type === 'ordered_list_open') hintDepth++;
      if (t.type === 'ordered_list_close') hintDepth--;
      if (t.type === 'list_item_open' && hintDepth === 1 && result.hints.length < 10) currentHint = [];
      if (t.type === 'inline' && currentHint && hintDepth === 1) currentHint.push(t.content);
      if (t.type === 'list_item_close' && hintDepth === 1 && currentHint) {
        result.hints.push(withoutComments(currentHint.join('\n')));
        currentHint = null;
      }
    }
    if (t.type === 'fence') {
      const [lang = '', ...meta] = t.info.trim().split(/\s+/);
      const title = /title="([^"]+)"/.exec(meta.join(' '));
      const tested = /(?:^|\s)test="([^"]+)"/.exec(meta.join(' '));
      result.codeBlocks.push({ lang, title: title ? title[1] : null, content: t.content, line, section, runnable: RUNNABLE.has(lang) && !title, test: tested ? tested[1] : null });
    }
    if (t.type === 'html_block') result.htmlBlocks.push({ content: t.content, line, section });
    if (t.type === 'inline') {
      for (const c of t.children || []) {
        if (c.type === 'code_inline') result.inlineCode.push({ text: c.content, line, section });
        if (c.type === 'link_open') result.links.push({ href: c.attrGet('href'), line, section });
      }
    }
  }
  return result;
}

/** The Markdown source of one second-level section, without its heading. */
function readWalkthroughSection(file, title) {
  const lines = fs.readFileSync(file, 'utf8').split(/\r?\n/);
  const start = lines.findIndex((l) => l.trim() === `## ${title}`);
  if (start < 0) return '';
  let end = start + 1;
  while (end < lines.length && !/^## /.test(lines[end])) end++;
  return withoutComments(lines.slice(start + 1, end).join('\n')).trim();
}

/**
 * The count markers in a walkthrough's source, each with the number written
 * directly before it (null when there is none: a misplaced marker).
 */
function countMarkers(source) {
  const found = [];
  const lines = source.split(/\r?\n/);
  lines.forEach((text, i) => {
    // The inline form, directly after its number (being retired: it sits
    // mid-sentence in the raw file).
    for (const m of text.matchAll(/<!--\s*count:\s*([\s\S]*?)\s*-->/g)) {
      const before = /(\d[\d,]*(?:\.\d+)?)$/.exec(text.slice(0, m.index));
      found.push({ number: before ? Number(before[1].replace(/,/g, '')) : null, written: before ? before[1] : null, key: m[1], line: i + 1, inline: true });
    }
    // The end-of-paragraph form: each number, as written, and its source.
    for (const m of text.matchAll(/<!--\s*counts:\s*([\s\S]*?)\s*-->/g)) {
      const scope = paragraphBefore(lines, i, m.index);
      for (const entry of m[1].split(';').map((e) => e.trim()).filter(Boolean)) {
        const parts = /^(\d[\d,]*(?:\.\d+)?)\s*=\s*(.+)$/.exec(entry);
        const written = parts ? parts[1] : null;
        const inScope = written !== null && new RegExp(`(^|[^\\d.,])${written.replace(/[.,]/g, '\\$&')}(?![\\d]|[.,]\\d)`).test(scope);
        found.push({ number: parts && inScope ? Number(written.replace(/,/g, '')) : null, written, key: parts ? parts[2].trim() : entry, line: i + 1, inline: false, missing: parts && !inScope });
      }
    }
  });
  return found;
}

/**
 * The text a `counts` marker speaks of: its paragraph (or list item, or
 * table), from the line after the last blank line up to the marker, without
 * comments.
 */
function paragraphBefore(lines, index, column) {
  let first = index;
  while (first > 0 && lines[first - 1].trim() !== '') first--;
  const text = [...lines.slice(first, index), lines[index].slice(0, column)].join('\n');
  return withoutComments(text);
}

module.exports = { SECTIONS, readWalkthrough, readWalkthroughSection, countMarkers, withoutComments };
