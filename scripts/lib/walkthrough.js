'use strict';
// Reads a lab's README.md (its walkthrough) with markdown-it: the sections,
// the hints, the code blocks and the commands it shows. One parser for the
// docs tests and for `workbook hint`, so the README stays the one source.

const fs = require('node:fs');
const MarkdownIt = require('markdown-it');

/** Every walkthrough has these second-level sections, in this order. */
const SECTIONS = ['The symptom', 'Measure', 'Profile', 'Read the profile', 'Hints', 'Fix', 'Verify', 'Why it works', 'Going further'];

const md = new MarkdownIt();

function inlineText(token) {
  return (token.children || []).map((c) => c.content).join('');
}

/**
 * @returns {{title:string, sections:string[], hints:string[],
 *   codeBlocks:Array<{lang:string, title:string|null, content:string, line:number}>,
 *   inlineCode:Array<{text:string, line:number}>, links:Array<{href:string, line:number}>}}
 */
function readWalkthrough(file) {
  const source = fs.readFileSync(file, 'utf8');
  const tokens = md.parse(source, {});
  const result = { title: '', sections: [], hints: [], codeBlocks: [], inlineCode: [], links: [] };
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
        result.hints.push(currentHint.join('\n'));
        currentHint = null;
      }
    }
    if (t.type === 'fence') {
      const [lang = '', ...meta] = t.info.trim().split(/\s+/);
      const title = /title="([^"]+)"/.exec(meta.join(' '));
      result.codeBlocks.push({ lang, title: title ? title[1] : null, content: t.content, line, section });
    }
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
  return lines.slice(start + 1, end).join('\n').trim();
}

module.exports = { SECTIONS, readWalkthrough, readWalkthroughSection };
