'use strict';
// The walkthroughs are read and followed to the letter, so they are tested:
// every lab README has the standard sections in order and 3–4 hints; every
// `npx workbook …` / `npm run …` command it shows exists and takes those
// arguments; every file it names exists; and every code block marked as
// coming from a file (```js title="path") matches that file.

const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { labs, findLab, ROOT } = require('../scripts/lib/labs');
const { SECTIONS, readWalkthrough } = require('../scripts/lib/walkthrough');
const { shippedContent } = require('../scripts/lib/shipped');
const COMMANDS = require('../scripts/cli/commands');
const TOOLS = require('../scripts/profile/tools');

const rootPackage = require('../package.json');
const sitePackage = fs.existsSync(path.join(ROOT, 'site', 'package.json')) ? require('../site/package.json') : { scripts: {} };

/** Splits a shell command line into words, honouring quotes. */
function words(line) {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** Commands shown in sh blocks and inline code, without prompts and comments. */
function commandsIn(walkthrough) {
  const lines = [];
  for (const block of walkthrough.codeBlocks.filter((b) => ['sh', 'bash', 'shell', 'console'].includes(b.lang))) {
    for (const raw of block.content.split('\n')) {
      const line = raw.replace(/^\$\s+/, '').replace(/\s+#.*$/, '').trim();
      if (line) lines.push({ line, where: `line ${block.line}` });
    }
  }
  for (const code of walkthrough.inlineCode) {
    // `npx workbook check` alone in prose names the command: only the name is checked.
    if (/^(npx workbook|npm (run|test|start|ci))\b/.test(code.text)) lines.push({ line: code.text, where: `line ${code.line}`, mention: words(code.text).length === 3 });
  }
  return lines;
}

/** Why `npx workbook <args>` would be refused, or null when it is valid. */
function workbookProblem(args, { mention = false } = {}) {
  const [name, ...rest] = args;
  if (name === 'help') return rest[0] && !COMMANDS[rest[0]] && !/^</.test(rest[0]) ? `no command "${rest[0]}"` : null;
  const command = COMMANDS[name];
  if (!command) return `no command "${name}"`;
  if (mention) return null;
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { ...command.options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true });
  } catch (err) {
    return err.message;
  }
  const lab = parsed.positionals[0];
  // `<lab>` is required; `[<lab>]` or `[<lab> ...]` may be left out.
  const labOptional = /\[<lab>/.test(command.usage);
  if (/<lab>/.test(command.usage) && lab !== '<lab>' && !(labOptional && lab === undefined) && !findLab(lab)) return `no lab "${lab}"`;
  if (name === 'profile' && parsed.values.tool && !TOOLS[parsed.values.tool] && !/^</.test(parsed.values.tool)) return `no tool "${parsed.values.tool}"`;
  if (parsed.values.app && !/^</.test(parsed.values.app) && !fs.existsSync(path.join(ROOT, parsed.values.app))) return `no file ${parsed.values.app}`;
  return null;
}

function npmProblem(args) {
  let scripts = rootPackage.scripts;
  let rest = args;
  if (rest[0] === '--prefix') {
    scripts = rest[1] === 'site' ? sitePackage.scripts : {};
    rest = rest.slice(2);
  }
  const [verb, script] = rest;
  if (['ci', 'install', 'test', 'start'].includes(verb)) return verb === 'install' || verb === 'ci' || scripts[verb] ? null : `no "${verb}" script`;
  if (verb === 'run') return scripts[script] ? null : `no npm script "${script}"`;
  return null;
}

/** Repository paths named in the text, e.g. `labs/01-sync-pbkdf2/app.js`. */
const REPO_PATH = /^(labs|solutions|scripts|test|site)\/[\w./-]+$/;

describe.each(labs.map((lab) => [lab.slug, lab]))('%s/README.md', (slug, lab) => {
  const walkthrough = fs.existsSync(lab.readme) ? readWalkthrough(lab.readme) : null;

  test('exists, with the standard sections in order', () => {
    expect(walkthrough).not.toBeNull();
    expect(walkthrough.title).toMatch(new RegExp(`^Lab ${lab.id} · `));
    expect(walkthrough.sections).toEqual(SECTIONS);
  });

  test('has a ladder of 3–4 hints', () => {
    expect(walkthrough.hints.length).toBeGreaterThanOrEqual(3);
    expect(walkthrough.hints.length).toBeLessThanOrEqual(4);
  });

  test('every command it shows exists and takes the arguments shown', () => {
    const problems = [];
    for (const { line, where, mention } of commandsIn(walkthrough)) {
      const w = words(line);
      let problem = null;
      if (w[0] === 'npx' && w[1] === 'workbook') problem = workbookProblem(w.slice(2), { mention });
      else if (w[0] === 'npm') problem = npmProblem(w.slice(1));
      else if (w[0] === 'node' && w[1] && REPO_PATH.test(w[1]) && !fs.existsSync(path.join(ROOT, w[1]))) problem = `no file ${w[1]}`;
      if (problem) problems.push(`${where}: \`${line}\`: ${problem}`);
    }
    expect(problems).toEqual([]);
  });

  test('every file it names exists', () => {
    const missing = [];
    for (const { text, line } of walkthrough.inlineCode) {
      if (REPO_PATH.test(text) && !fs.existsSync(path.join(ROOT, text))) missing.push(`line ${line}: ${text}`);
    }
    for (const { href, line } of walkthrough.links) {
      if (/^[a-z]+:|^#/.test(href)) continue;
      const target = path.resolve(lab.dir, href.split('#')[0]);
      if (!fs.existsSync(target)) missing.push(`line ${line}: link ${href}`);
    }
    expect(missing).toEqual([]);
  });

  test('every code block marked as coming from a file matches that file', () => {
    const mismatched = [];
    for (const block of walkthrough.codeBlocks.filter((b) => b.title && REPO_PATH.test(b.title))) {
      const found = fileText(block.title);
      const excerpt = block.content.replace(/\n$/, '');
      if (found === null) mismatched.push(`line ${block.line}: ${block.title} does not exist`);
      else if (!found.includes(excerpt)) mismatched.push(`line ${block.line}: the excerpt is not in ${block.title} as written`);
    }
    expect(mismatched).toEqual([]);
  });
});

/** A repository file's text; lab files as shipped, since learners edit them. */
function fileText(relativePath) {
  const [top, slug, ...rest] = relativePath.split('/');
  if (top === 'labs') {
    const lab = findLab(slug);
    const got = lab && shippedContent(lab, rest.join('/'));
    if (got && !got.error) return got.content;
  }
  const full = path.join(ROOT, relativePath);
  return fs.existsSync(full) ? fs.readFileSync(full, 'utf8').replace(/\r\n/g, '\n') : null;
}

test('the root README shows only commands that exist', () => {
  const readme = readWalkthrough(path.join(ROOT, 'README.md'));
  const problems = [];
  for (const { line, where, mention } of commandsIn(readme)) {
    const w = words(line);
    const problem = w[0] === 'npx' && w[1] === 'workbook' ? workbookProblem(w.slice(2), { mention }) : w[0] === 'npm' ? npmProblem(w.slice(1)) : null;
    if (problem) problems.push(`${where}: \`${line}\`: ${problem}`);
  }
  expect(problems).toEqual([]);
});

test('the checker of commands itself rejects what it should', () => {
  expect(workbookProblem(['check', '09'])).toMatch(/no lab/);
  expect(workbookProblem(['check'])).toMatch(/no lab/); // required
  expect(workbookProblem(['verify'])).toBeNull(); // optional
  expect(workbookProblem(['verify', '09'])).toMatch(/no lab/);
  expect(workbookProblem(['profile', '01', '--tool', 'vtune'])).toMatch(/no tool/);
  expect(workbookProblem(['check', '01', '--frobnicate'])).toMatch(/Unknown option/);
  expect(workbookProblem(['explode'])).toMatch(/no command/);
  expect(workbookProblem(['check', '01', '--json'])).toBeNull();
  expect(npmProblem(['run', 'nope'])).toMatch(/no npm script/);
});
