'use strict';
// The workbook plugin: at build time it reads the lab list (labs/labs.json,
// through scripts/lib/labs.js) and, for every lab, the files its page shows
// (shipped starter, check, reference solution and the diff between them),
// what its check definition declares (gates, settings, advice, charts,
// explanations), its measured margins, its notes for trainers, and the
// captured measurements.
// Pages read it all with usePluginData('workbook').

const fs = require('node:fs');
const path = require('node:path');
const { structuredPatch } = require('diff');
// A dependency of the workbook itself (its root package), as scripts/lib uses it.
const MarkdownIt = require('markdown-it');
const { ROOT, METADATA, labs, labFiles, readRepoFile, repoPath, isFile, hasWalkthrough, checkOf, marginsOf } = require('./repo');

const { CHART_KINDS } = require('../../src/components/LabCharts/kinds');

// Notes and explanations are the workbook's own text: no raw HTML, typographic quotes off (as written).
const markdown = new MarkdownIt({ html: false, linkify: false });

const CAPTURES_DIR = path.join(__dirname, '..', '..', 'static', 'captures');
const CONTEXT_LINES = 4;
// A lab file bigger than this (a generated template of 140 KB, say) is shown
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

/**
 * What pages show of a lab's check definition (labs/<slug>/check/index.js,
 * declared with scripts/checks/define-check.js) and of its measured margins
 * (check/margins.json): plain data only, no functions.
 */
function checkFacts(lab) {
  let check;
  try {
    check = checkOf(lab);
  } catch (err) {
    throw new Error(
      `The site reads each lab's gates from ${repoPath(lab.checkModule)}, which could not be loaded ` +
        `(${err.message}). Run \`npm ci\` at the workbook's root first.`,
    );
  }
  for (const chart of check.charts) {
    if (!CHART_KINDS.includes(chart.kind)) {
      throw new Error(`${repoPath(lab.checkModule)} asks for a chart of kind ${JSON.stringify(chart.kind)}, which the site does not draw (site/src/components/LabCharts draws ${CHART_KINDS.join(', ')}).`);
    }
  }
  const gates = Object.entries(check.gates).map(([id, g]) => ({
    id,
    label: g.label,
    op: g.op,
    threshold: g.threshold,
    per: g.per || null,
    unit: g.unit,
    starterFails: check.starterFails.includes(id),
    starterMayFail: check.starterMayFail.includes(id),
  }));
  return {
    gates,
    settings: check.settings,
    advice: check.advice,
    charts: check.charts,
    tools: check.tools,
    captureSpecs: check.captures,
    explain: {
      kind: check.explain.kind,
      calibrationHtml: check.explain.calibration ? markdown.renderInline(check.explain.calibration) : null,
      noiseHtml: markdown.renderInline(check.explain.noise),
    },
    margins: marginsOf(lab),
  };
}

/**
 * The lab's notes for trainers (check/trainers.md): its '## Demo' and
 * '## Pitfalls' sections, rendered to HTML here (markdown-it, raw HTML off)
 * so that the page needs no markdown renderer of its own.
 */
function trainerNotes(lab) {
  const file = path.join(lab.checkDir, 'trainers.md');
  if (!isFile(file)) {
    console.warn(`[workbook] ${repoPath(file)} is missing: the trainers' page shows no demo or pitfalls for ${lab.slug}.`);
    return null;
  }
  const text = fs.readFileSync(file, 'utf8').replace(/\r\n/g, '\n');
  const sections = {};
  let current = null;
  for (const line of text.split('\n')) {
    const heading = /^##\s+(.+?)\s*$/.exec(line);
    if (heading) {
      current = heading[1].toLowerCase();
      sections[current] = [];
    } else if (current) {
      sections[current].push(line);
    }
  }
  const section = (name) => {
    if (!sections[name]) throw new Error(`${repoPath(file)} has no '## ${name[0].toUpperCase()}${name.slice(1)}' section: the trainers' page shows it.`);
    return markdown.render(sections[name].join('\n').trim());
  };
  return { path: repoPath(file), demoHtml: section('demo'), pitfallsHtml: section('pitfalls') };
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
        ...checkFacts(lab),
        trainers: trainerNotes(lab),
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
        METADATA,
        path.join(ROOT, 'scripts/lib/shipped-starters.json'),
        path.join(ROOT, 'solutions/**/*'),
        path.join(ROOT, 'labs/*/check/*.{js,json,md}'),
        path.join(CAPTURES_DIR, 'index.json'),
      ];
    },
  };
};
