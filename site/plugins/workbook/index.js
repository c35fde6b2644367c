'use strict';
// The workbook plugin: at build time it reads the lab list
// (scripts/lib/labs.js, the one source of truth) and, for every lab, the
// files its page shows (shipped starter, check, reference solution and the
// diff between them), the check's thresholds, and the captured measurements.
// Pages read it all with usePluginData('workbook').

const fs = require('node:fs');
const path = require('node:path');
const { structuredPatch } = require('diff');
const { ROOT, labs, labFiles, readRepoFile, repoPath, isFile, hasWalkthrough, checkOf } = require('./repo');

const CAPTURES_DIR = path.join(__dirname, '..', '..', 'static', 'captures');
const CONTEXT_LINES = 4;
// A lab file bigger than this (lab 04's generated 140 KB template) is shown
// by its first lines only: the page is for reading, the editor for the rest.
const PREVIEW_LIMIT = { bytes: 16 * 1024, lines: 40 };

/** The file as the page shows it: whole, or its first lines and what was left out. */
function shown(content) {
  if (content.length <= PREVIEW_LIMIT.bytes) return { content, omittedLines: 0, bytes: content.length };
  const lines = content.split('\n');
  return {
    content: lines.slice(0, PREVIEW_LIMIT.lines).join('\n'),
    omittedLines: lines.length - PREVIEW_LIMIT.lines,
    bytes: Buffer.byteLength(content),
  };
}

function languageOf(file) {
  const ext = path.extname(file).slice(1);
  return { js: 'js', hbs: 'handlebars', json: 'json', md: 'markdown' }[ext] || 'text';
}

/** What a check module exports for pages: its thresholds, its load settings and its advice on a fail. */
function checkModuleFacts(lab) {
  let mod;
  try {
    mod = checkOf(lab);
  } catch (err) {
    throw new Error(
      `The site reads each lab's thresholds from ${repoPath(lab.checkModule)}, which could not be loaded ` +
        `(${err.message}). Run \`npm ci\` at the workbook's root first.`,
    );
  }
  if (!mod.GATES) throw new Error(`${repoPath(lab.checkModule)} exports no GATES: the site cannot show its thresholds.`);
  return { gates: mod.GATES, load: mod.LOAD || {}, advice: mod.advice || null };
}

function solutionDiff(lab, starter) {
  const starterPath = repoPath(lab.app);
  const solutionPath = repoPath(lab.solutionApp);
  const solution = readRepoFile(solutionPath);
  const patch = structuredPatch(starterPath, solutionPath, starter, solution, '', '', { context: CONTEXT_LINES });
  const count = (mark) => patch.hunks.reduce((n, h) => n + h.lines.filter((l) => l[0] === mark).length, 0);
  return {
    path: solutionPath,
    ...shown(solution),
    diff: {
      from: starterPath,
      hunks: patch.hunks.map(({ oldStart, oldLines, newStart, newLines, lines }) => ({ oldStart, oldLines, newStart, newLines, lines })),
      added: count('+'),
      removed: count('-'),
    },
  };
}

/**
 * The captures of one lab from static/captures/index.json, without files
 * that are listed but missing (a half-written capture renders what it has).
 */
function capturesFor(index, lab) {
  const entry = index && index.labs && index.labs[lab.slug];
  if (!entry) return null;
  const files = (entry.files || []).filter((f) => {
    const ok = typeof f.path === 'string' && isFile(path.join(CAPTURES_DIR, '..', ...f.path.split('/')));
    if (!ok) console.warn(`[workbook] captures: ${lab.slug} lists ${f.path}, which is not in site/static; left out.`);
    return ok;
  });
  return { machine: entry.machine || null, results: entry.results || {}, files };
}

function readCaptureIndex() {
  const file = path.join(CAPTURES_DIR, 'index.json');
  if (!isFile(file)) return null;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`site/static/captures/index.json is not valid JSON (${err.message}): run \`npm run capture\` again.`);
  }
}

function loadWorkbook() {
  const captures = readCaptureIndex();
  const rootPackage = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  return {
    nodeEngines: (rootPackage.engines && rootPackage.engines.node) || null,
    capturesGeneratedAt: captures ? captures.generatedAt || null : null,
    labs: labs.map((lab) => {
      const starterFiles = labFiles(lab).map((file) => {
        const rel = `labs/${lab.slug}/${file}`;
        return { path: rel, language: languageOf(file), full: readRepoFile(rel) };
      });
      const starter = starterFiles.find((f) => f.path === repoPath(lab.app));
      if (!starter) throw new Error(`The workbook records no shipped app.js for ${lab.slug}.`);
      const solution = solutionDiff(lab, starter.full);
      const checkPath = repoPath(lab.checkModule);
      return {
        id: lab.id,
        number: lab.number,
        slug: lab.slug,
        title: lab.title,
        minutes: lab.minutes,
        teaches: lab.teaches,
        permalink: `/labs/${lab.slug}`,
        hasReadme: hasWalkthrough(lab),
        starterFiles: starterFiles.map(({ full, ...file }) => ({ ...file, ...shown(full) })),
        check: { path: checkPath, ...shown(readRepoFile(checkPath)) },
        solution,
        ...checkModuleFacts(lab),
        captures: capturesFor(captures, lab),
      };
    }),
  };
}

module.exports = function workbookPlugin() {
  return {
    name: 'workbook',
    async loadContent() {
      return loadWorkbook();
    },
    async contentLoaded({ content, actions }) {
      actions.setGlobalData(content);
    },
    getPathsToWatch() {
      // `docusaurus start` reloads when any of these change.
      return [
        path.join(ROOT, 'scripts/lib/labs.js'),
        path.join(ROOT, 'scripts/lib/shipped-starters.json'),
        path.join(ROOT, 'solutions/**/*'),
        path.join(ROOT, 'test/checks/*.js'),
        path.join(CAPTURES_DIR, 'index.json'),
      ];
    },
  };
};
