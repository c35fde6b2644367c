'use strict';
// Markdown from a walkthrough, made readable in a terminal: paragraphs
// wrapped, code kept as it is (inline code keeps its backticks, so that
// "How many quotes can `quotes` hold" still reads as code without colour),
// emphasis and links reduced to plain text.
// Enough for hints and the "Why it works" section; not a general renderer.

const { stripVTControlCharacters } = require('node:util');
const MarkdownIt = require('markdown-it');
const { bold, dim, cyan } = require('./style');

const md = new MarkdownIt();

function wrap(text, width, indent) {
  const lines = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && stripVTControlCharacters(`${line} ${word}`).length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines.map((l) => indent + l).join('\n');
}

function inline(token) {
  return (token.children || [])
    .map((c) => {
      if (c.type === 'code_inline') return cyan(`\`${c.content}\``);
      if (c.type === 'text' || c.type === 'softbreak') return c.type === 'softbreak' ? ' ' : c.content;
      return '';
    })
    .join('');
}

/** Renders `source` (Markdown) as terminal text, `width` columns wide. */
function renderMarkdown(source, { width = Math.min(process.stdout.columns || 80, 100) - 4, indent = '  ' } = {}) {
  const out = [];
  const tokens = md.parse(source, {});
  let bullet = null;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type === 'heading_open') out.push('', bold(inline(tokens[i + 1])));
    else if (t.type === 'bullet_list_open') bullet = '•';
    else if (t.type === 'bullet_list_close') bullet = null;
    else if (t.type === 'inline' && tokens[i - 1]?.type === 'paragraph_open') {
      const text = inline(t);
      out.push(bullet ? wrap(text, width - 2, indent + '  ').replace(indent + '  ', `${indent}${bullet} `) : wrap(text, width, indent), '');
    } else if (t.type === 'fence' || t.type === 'code_block') {
      out.push(...t.content.replace(/\n$/, '').split('\n').map((l) => `${indent}  ${dim(l)}`), '');
    }
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').replace(/^\n+|\n+$/g, '');
}

module.exports = { renderMarkdown };
