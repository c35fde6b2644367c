'use strict';
// Tables that list the labs, generated from labs/labs.json so none can miss
// a lab: the README's lab table (between its markers). `npx workbook dev
// tables` rewrites it; `dev check` says when it is stale.

const fs = require('node:fs');
const path = require('node:path');

const README_MARKERS = {
  start: '<!-- labs:start (generated from labs/labs.json by `npx workbook dev tables`) -->',
  end: '<!-- labs:end -->',
};

/** The README's lab table, as Markdown. */
function labTable(labs) {
  return [
    '| Lab | What it teaches | Time |',
    '|---|---|---|',
    ...labs.map((lab) => `| [${lab.id} · ${lab.title}](labs/${lab.slug}/README.md) | ${lab.teaches} | ${lab.minutes} min |`),
  ].join('\n');
}

/** Rewrites the README's generated table; returns true when it changed. */
function writeReadmeTable(root, labs) {
  const file = path.join(root, 'README.md');
  const text = fs.readFileSync(file, 'utf8');
  const start = text.indexOf(README_MARKERS.start);
  const end = text.indexOf(README_MARKERS.end);
  if (start < 0 || end < start) throw new Error(`README.md has no ${README_MARKERS.start} … ${README_MARKERS.end} markers to write the lab table between.`);
  const next = `${text.slice(0, start + README_MARKERS.start.length)}\n${labTable(labs)}\n${text.slice(end)}`;
  if (next === text) return false;
  fs.writeFileSync(file, next);
  return true;
}

module.exports = { README_MARKERS, labTable, writeReadmeTable };
