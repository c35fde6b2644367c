'use strict';
// Do two builds of the site show the same pages? Builds of the same sources
// differ in their bytes (Rspack's minifier names variables differently from
// run to run, so asset file names change; CSS-module class suffixes depend
// on the checkout's path), never in what a page says. CI compares the
// committed build with one it makes from the sources: a difference means an
// input of the build is missing from scripts/lib/site-inputs.js, so the
// stamp called a stale build current.

const fs = require('node:fs');
const path = require('node:path');

/** A built page with what legitimately varies between builds taken out: hashed asset names, CSS-module class suffixes. */
function normalisePage(html) {
  return html
    .replace(/\/assets\/(js|css)\/([\w~.-]+?)\.[0-9a-f]{8}\.(js|css)\b/g, '/assets/$1/$2.HASH.$3')
    .replace(/\b([A-Za-z][\w-]*?)_[A-Za-z0-9_-]{4}\b/g, '$1_CLASS');
}

/** The HTML pages of a build, relative to it; not the captures, which git holds once, in site/static. */
function pagesUnder(dir) {
  const found = [];
  const walk = (current) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (!(current === dir && entry.name === 'captures')) walk(full);
      } else if (entry.name.endsWith('.html')) found.push(path.relative(dir, full).split(path.sep).join('/'));
    }
  };
  walk(dir);
  return found.sort();
}

/**
 * @returns {string[]} one line per page that is missing from either build or reads differently, with where it starts to differ
 */
function compareBuilds(dirA, dirB) {
  const a = new Set(pagesUnder(dirA));
  const b = new Set(pagesUnder(dirB));
  const problems = [];
  for (const page of a) if (!b.has(page)) problems.push(`${page}: only in ${dirA}`);
  for (const page of b) if (!a.has(page)) problems.push(`${page}: only in ${dirB}`);
  for (const page of [...a].filter((p) => b.has(p))) {
    const x = normalisePage(fs.readFileSync(path.join(dirA, page), 'utf8'));
    const y = normalisePage(fs.readFileSync(path.join(dirB, page), 'utf8'));
    if (x === y) continue;
    let i = 0;
    while (x[i] === y[i]) i++;
    const around = (text) => JSON.stringify(text.slice(Math.max(0, i - 40), i + 60).replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' '));
    problems.push(`${page}: ${around(x)} against ${around(y)}`);
  }
  return problems;
}

module.exports = { compareBuilds, normalisePage };
