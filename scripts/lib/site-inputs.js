'use strict';
// What the built site (site/build) is made from, and whether a build is the
// build of the sources as they are: the hash of each input, which
// `npm run site:build` records in site/build/.workbook-build.json and
// test/site.test.js, `npm start` and `workbook doctor` compare with the
// sources. scripts/lib/site.js builds and serves the site.

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, labs, checkOf } = require('./labs');
const { labFiles } = require('./shipped');
const { readWalkthrough } = require('./walkthrough');

const SITE_DIR = path.join(ROOT, 'site');
const BUILD_DIR = path.join(SITE_DIR, 'build');
const STAMP_NAME = '.workbook-build.json';
const BUILD_COMMAND = 'npm run site:build';
// The committed build is for the workbook server, which serves it at the root.
const DEFAULT_BASE_URL = '/';

const TEXT = /\.(js|mjs|cjs|jsx|json|md|mdx|css|html|txt|hbs|svg|yml|yaml)$/i;

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function sha256(...parts) {
  const hash = crypto.createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
}

/** Every file under `dir` (relative to ROOT, forward slashes), skipping `skip` folder names. */
function filesUnder(dir, skip = new Set()) {
  const found = [];
  const walk = (current) => {
    let entries;
    try {
      entries = fs.readdirSync(current, { withFileTypes: true });
    } catch {
      return; // a folder that does not exist has no inputs
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (!skip.has(entry.name)) walk(full);
      } else if (entry.isFile()) {
        found.push(path.relative(ROOT, full).split(path.sep).join('/'));
      }
    }
  };
  walk(dir);
  return found;
}

/**
 * The files the built site is made from, relative to ROOT. The learner's own
 * edits to labs/<lab>/app.js are deliberately not among them: the site shows
 * the shipped starters (pinned by scripts/lib/shipped-starters.json), so
 * editing a lab never makes the site stale.
 *
 * Only what the build reads is listed, so that a change elsewhere (the
 * harness, the CLI, a check's helpers, the fixtures) does not ask for a new
 * build to be committed: the site's own sources, the walkthroughs and their
 * images, the three files of each lab's check/ folder its page shows (the
 * check's source, its margins, the trainers' notes), each reference solution,
 * the modules of scripts/lib the site's code names (libModulesOfSite), and the files walkthroughs
 * quote. What a lab's check *declares* (gates, thresholds, explanations,
 * charts; defaults from scripts/checks/define-check.js; whatever its helpers
 * compute into them) is an input of its own, as data: see buildInputs().
 */
function buildFiles() {
  const editable = new Set(labs.flatMap((lab) => labFiles(lab).map((file) => `labs/${lab.slug}/${file}`)));
  const labInputs = filesUnder(path.join(ROOT, 'labs')).filter(
    (file) =>
      !editable.has(file) &&
      (/\/README\.md$/.test(file) ||
        /\.(png|jpe?g|gif|svg|webp)$/i.test(file) ||
        file === 'labs/labs.json' ||
        /^labs\/[^/]+\/check\/(index\.js|margins\.json|trainers\.md)$/.test(file)),
  );
  return [
    // site/README.md is for people, not the build.
    ...filesUnder(SITE_DIR, new Set(['node_modules', 'build', '.docusaurus'])).filter((file) => file !== 'site/README.md'),
    ...labInputs,
    ...labs.map((lab) => path.relative(ROOT, lab.solutionApp).split(path.sep).join('/')),
    // Other files of solutions/ a walkthrough folds in (solution-code directives).
    ...directiveFiles(labInputs),
    // Read by the site's plugins (repo.js, …) and bundled by its pages (format.js).
    ...libModulesOfSite(),
    // A quoted starter is shown as shipped (site/plugins/workbook/repo.js), which shipped-starters.json pins.
    ...quotedFiles([...labInputs, ...filesUnder(path.join(SITE_DIR, 'docs'))]).filter((file) => !editable.has(file)),
  ]
    .filter((file, i, all) => all.indexOf(file) === i)
    .sort();
}

/** The files of solutions/ that the walkthroughs' solution-code directives name. */
function directiveFiles(files) {
  const { parseDirectives } = require('./solution-code');
  return files
    .filter((file) => /\/README\.md$/.test(file))
    .flatMap((file) => parseDirectives(fs.readFileSync(path.join(ROOT, file), 'utf8')).flatMap((d) => d.excerpts.map((e) => e.path)))
    .filter((file) => fs.existsSync(path.join(ROOT, file)));
}

/**
 * The files of scripts/lib the site loads, found in its sources rather than
 * listed by hand, so a module a page starts to use is an input at once: every
 * name of a scripts/lib file in site/'s code (an import such as
 * '../../../scripts/lib/wording', or path.join(ROOT, 'scripts', 'lib',
 * 'labs.js')), then, in those modules, their own relative requires and the
 * JSON files they name (shipped.js reads shipped-starters.json). Modules a
 * lab's check loads are not among them: the check's definition is an input
 * as data.
 */
function libModulesOfSite() {
  const libDir = path.join(ROOT, 'scripts', 'lib');
  const resolve = (name) => [name, `${name}.js`].map((n) => path.join(libDir, n)).find((f) => fs.existsSync(f) && fs.statSync(f).isFile());
  const siteCode = filesUnder(SITE_DIR, new Set(['node_modules', 'build', '.docusaurus', 'static'])).filter((f) => /\.(m?js|jsx)$/.test(f));
  const wanted = new Set();
  const namesIn = (text, patterns) => patterns.flatMap((re) => [...text.matchAll(re)].map((m) => m[1]));
  for (const file of siteCode) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    for (const name of namesIn(text, [/['"`](?:\.\.\/)*scripts\/lib\/([\w.-]+)['"`]/g, /['"`]scripts['"`]\s*,\s*['"`]lib['"`]\s*,\s*['"`]([\w.-]+)['"`]/g])) {
      const found = resolve(name);
      if (found) wanted.add(found);
    }
  }
  for (const module of wanted) {
    if (!module.endsWith('.js')) continue;
    const text = fs.readFileSync(module, 'utf8');
    for (const name of namesIn(text, [/require\(\s*['"`]\.\/([\w.-]+)['"`]\s*\)/g, /['"`]([\w-]+\.json)['"`]/g])) {
      const found = resolve(name);
      if (found) wanted.add(found); // a Set visits what is added while it is iterated
    }
  }
  return [...wanted].map((file) => path.relative(ROOT, file).split(path.sep).join('/')).sort();
}

/**
 * Files that walkthroughs quote in code blocks titled with their path
 * (```js title="scripts/…"): the build copies their lines, so they are
 * inputs wherever they live.
 */
function quotedFiles(markdownFiles) {
  return markdownFiles
    .filter((file) => /\.mdx?$/.test(file))
    .flatMap((file) => readWalkthrough(path.join(ROOT, file)).codeBlocks.map((block) => block.title))
    .filter((title) => title && /^(labs|solutions|scripts|test)\//.test(title) && fs.existsSync(path.join(ROOT, title)));
}

/** A short content hash: enough to tell that an input changed, and small enough to commit one per input. */
function shortHash(content) {
  return sha256(content).slice(0, 16);
}

/** The hash of one input file's content. Line endings do not change the site (Windows checkouts may use CRLF). */
function fileHash(file, content) {
  return shortHash(TEXT.test(file) ? content.toString('utf8').replace(/\r\n/g, '\n') : content);
}

/**
 * Every input of the build, as { name: hash }: each file of buildFiles(), plus
 * what the build reads that is not a whole file, under a name in brackets:
 * each lab's check definition as data (JSON drops its functions, which the
 * site never shows) and the root package's `engines` (the home page quotes it).
 */
function buildInputs({ baseUrl = DEFAULT_BASE_URL } = {}) {
  const inputs = {};
  for (const file of buildFiles()) {
    inputs[file] = fileHash(file, fs.readFileSync(path.join(ROOT, file)));
  }
  for (const lab of labs) inputs[`[check definition of ${lab.slug}]`] = shortHash(JSON.stringify(checkOf(lab)));
  const rootPackage = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  inputs['[package.json engines]'] = shortHash(JSON.stringify(rootPackage.engines ?? null));
  inputs['[base URL]'] = shortHash(baseUrl);
  return Object.fromEntries(Object.entries(inputs).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** One hash of every build input (for a quick comparison; the stamp keeps them one by one). */
function buildHash(options) {
  return sha256(JSON.stringify(buildInputs(options)));
}

/** The base URL a build is made for, from the option or WORKBOOK_SITE_BASE_URL. */
function baseUrlOf(baseUrl) {
  return baseUrl || process.env.WORKBOOK_SITE_BASE_URL || DEFAULT_BASE_URL;
}

/**
 * Is the build in `dir` the build of the sources as they are now?
 * @returns {{state: 'missing'|'unstamped'|'stale'|'current', changed: string[]}}
 *   `changed`: the inputs that differ from the stamp, as "changed: NAME",
 *   "added: NAME" or "removed: NAME"
 */
function buildState({ dir = BUILD_DIR, baseUrl = DEFAULT_BASE_URL } = {}) {
  if (!fs.existsSync(path.join(dir, 'index.html'))) return { state: 'missing', changed: [] };
  const stamp = readJson(path.join(dir, STAMP_NAME));
  if (!stamp || typeof stamp.inputs !== 'object' || stamp.inputs === null) return { state: 'unstamped', changed: [] };
  const now = buildInputs({ baseUrl });
  const changed = [];
  for (const [name, hash] of Object.entries(now)) {
    if (!(name in stamp.inputs)) changed.push(`added: ${name}`);
    else if (stamp.inputs[name] !== hash) changed.push(`changed: ${name}`);
  }
  for (const name of Object.keys(stamp.inputs)) if (!(name in now)) changed.push(`removed: ${name}`);
  return { state: changed.length ? 'stale' : 'current', changed };
}

/** One sentence on a build that is not current, with the command that makes it so. */
function staleMessage({ state, changed }, { max = 8 } = {}) {
  if (state === 'missing') return `The built site is missing (site/build/index.html): restore it with \`git checkout -- site/build\`, or build it with \`${BUILD_COMMAND}\`.`;
  if (state === 'unstamped') return `site/build has no record of what it was built from (${STAMP_NAME}): rebuild it with \`${BUILD_COMMAND}\`.`;
  const shown = changed.slice(0, max).join('; ');
  const more = changed.length > max ? `; and ${changed.length - max} more` : '';
  // A learner who edited a walkthrough (notes, say) gets the way back too.
  const files = changed.filter((c) => c.startsWith('changed: ') && !c.includes('[')).map((c) => c.slice('changed: '.length));
  const undo = files.length && files.length <= max ? ` To put ${files.length === 1 ? 'that file' : 'those files'} back as committed instead: git checkout -- ${files.join(' ')}` : '';
  return `The committed site (site/build) was built from other sources than these (${shown}${more}): rebuild it with \`${BUILD_COMMAND}\` and commit site/build.${undo}`;
}

module.exports = {
  BUILD_COMMAND,
  BUILD_DIR,
  DEFAULT_BASE_URL,
  SITE_DIR,
  STAMP_NAME,
  baseUrlOf,
  buildFiles,
  buildHash,
  buildInputs,
  buildState,
  fileHash,
  libModulesOfSite,
  readJson,
  sha256,
  staleMessage,
};
