'use strict';
// `workbook dev`: tools for workbook authors, as rustlings has `dev new` and
// `dev check`.
//   dev new NN slug --title "…"   scaffold a lab's own files and its metadata entry
//   dev check                     lint every lab without measuring anything
//   dev tables                    rewrite the generated tables (README's labs, the tool matrix everywhere)
//   dev pin [--accept]            pin the walkthroughs' solution-code directives to their lines

const fs = require('node:fs');
const path = require('node:path');
const { ROOT, readLabs } = require('../lib/labs');
const { lintWorkbook } = require('../lib/lab-lint');
const { scaffoldLab } = require('../lib/lab-template');
const { writeReadmeTable, writeClassroomWorkflow, writeToolMatrixTables, CLASSROOM_WORKFLOW } = require('../lib/lab-tables');
const { blobId, MANIFEST } = require('../lib/shipped');
const { pinDirectives } = require('../lib/solution-code');
const { UsageError } = require('./errors');
const { bold, green, red } = require('../lib/style');

const USAGE = 'npx workbook dev <new NN slug --title "…" | check | tables | pin [--accept]> [--root DIR]';

function rootOf(values) {
  return values.root ? path.resolve(values.root) : ROOT;
}

/** Records the scaffolded starter as shipped, so `reset` and the verdict tests can recover it. */
function recordStarter(root, slug) {
  const manifestFile = path.join(root, path.relative(ROOT, MANIFEST));
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  manifest[slug] = { 'app.js': blobId(fs.readFileSync(path.join(root, 'labs', slug, 'app.js'), 'utf8')) };
  const sorted = Object.fromEntries(Object.keys(manifest).sort().map((k) => [k, manifest[k]]));
  fs.writeFileSync(manifestFile, `${JSON.stringify(sorted, null, 2)}\n`);
}

const SUBCOMMANDS = {
  new({ positionals, values }) {
    const [number, slug] = positionals;
    if (!/^\d{1,2}$/.test(number || '') || !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(slug || '')) {
      throw new UsageError('Say the lab\'s number and a kebab-case slug: npx workbook dev new 09 some-slug --title "…".', USAGE);
    }
    if (!values.title) throw new UsageError('Give the lab a title with --title "…".', USAGE);
    const root = rootOf(values);
    let written;
    try {
      written = scaffoldLab(root, { number: Number(number), slug, title: values.title });
    } catch (err) {
      throw new UsageError(`Cannot scaffold: ${err.message}`, USAGE);
    }
    const fullSlug = `${number.padStart(2, '0')}-${slug}`;
    recordStarter(root, fullSlug);
    writeReadmeTable(root, readLabs(root));
    writeClassroomWorkflow(root, readLabs(root));
    console.log(`Scaffolded lab ${fullSlug}:`);
    for (const file of written) console.log(`  ${file}`);
    console.log("  (generated: its shipped starter in scripts/lib/shipped-starters.json, the README's lab table, the classroom workflow)");
    console.log(`\nNext: write the lab, replacing every TODO, then ${bold('npx workbook dev check')} until it is clean.`);
    return 0;
  },

  check({ values }) {
    const started = Date.now();
    const root = rootOf(values);
    const problems = lintWorkbook(root);
    const count = readLabs(root).length;
    const took = `${((Date.now() - started) / 1000).toFixed(1)} s`;
    if (!problems.length) {
      console.log(green(`dev check: ${count} labs, no problems (${took}).`));
      return 0;
    }
    for (const p of problems) console.log(p);
    console.error(red(`dev check: ${problems.length} problem${problems.length > 1 ? 's' : ''} in ${count} labs (${took}).`, process.stderr));
    return 1;
  },

  /**
   * Pins every walkthrough's solution-code directives (scripts/lib/solution-code.js):
   * writes missing pins, follows lines that moved; --accept re-pins lines
   * that changed, once the prose around them has been read again.
   */
  pin({ values }) {
    const root = rootOf(values);
    let problems = 0;
    for (const lab of readLabs(root)) {
      if (!fs.existsSync(lab.readme)) continue;
      const rel = path.relative(root, lab.readme).split(path.sep).join('/');
      const source = fs.readFileSync(lab.readme, 'utf8');
      const result = pinDirectives(root, source, { accept: Boolean(values.accept) });
      for (const c of result.changes) console.log(`${rel}: ${c}`);
      for (const p of result.problems) console.log(red(`${rel}: ${p}`));
      problems += result.problems.length;
      if (result.text !== source) fs.writeFileSync(lab.readme, result.text);
    }
    console.log(problems ? `dev pin: ${problems} excerpt${problems > 1 ? 's' : ''} left as they were.` : green('dev pin: every solution-code directive is pinned.'));
    return problems ? 1 : 0;
  },

  tables({ values }) {
    const root = rootOf(values);
    const labs = readLabs(root);
    const readme = writeReadmeTable(root, labs);
    const classroom = writeClassroomWorkflow(root, labs);
    console.log(readme ? 'README.md: lab table rewritten from labs/labs.json.' : 'README.md: lab table already up to date.');
    console.log(`${CLASSROOM_WORKFLOW}: ${classroom ? 'rewritten from labs/labs.json.' : 'already up to date.'}`);
    const matrix = writeToolMatrixTables(root, labs).map((f) => path.relative(root, f).split(path.sep).join('/'));
    console.log(matrix.length ? `Tool-matrix tables rewritten from scripts/dev/tool-matrix.json: ${matrix.join(', ')}.` : 'Tool-matrix tables already up to date.');
    return 0;
  },
};

module.exports = {
  usage: USAGE,
  help: [
    '  dev new NN slug --title "…"   scaffold a lab\'s own files and its entry in labs/labs.json',
    '  dev check                     lint every lab in seconds, without measuring: one line per problem',
    '  dev tables                    rewrite the README\'s lab table and the classroom workflow from labs/labs.json,',
    '                                and every tool-matrix table from scripts/dev/tool-matrix.json',
    '  dev pin [--accept]            pin the walkthroughs\' solution-code directives to their lines in',
    '                                solutions/ (follows lines that moved; --accept re-pins changed ones)',
    '  --root DIR                    act on another copy of the workbook',
  ],
  options: { title: { type: 'string' }, root: { type: 'string' }, accept: { type: 'boolean' } },
  async run({ values, positionals }) {
    const [sub, ...rest] = positionals;
    const handler = SUBCOMMANDS[sub];
    if (!handler) throw new UsageError(sub ? `There is no "dev ${sub}".` : 'Say what to do: new, check, tables or pin.', USAGE);
    return handler({ values, positionals: rest });
  },
};
