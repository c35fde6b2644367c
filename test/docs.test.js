'use strict';
// The walkthroughs are read and followed to the letter, so they are tested:
// every lab README has the standard sections in order and 3–4 hints; every
// `npx workbook …` / `npm run …` command it shows exists and takes those
// arguments; every file it names exists; every code block marked as coming
// from a file (```js title="path") matches that file; every other JavaScript
// block runs as a complete program; and every number marked with a count
// marker equals what the code defines. The rules are written out at the top
// of scripts/lib/walkthrough.js.
//
// Reading a walkthrough takes milliseconds; running its snippets and command
// blocks takes seconds a lab (about 80 s for all sixteen on a 2-vCPU
// machine). So, as with the verdict suites and the site's lab pages, a
// learner's `npm test` runs them for the labs they have started or named
// (`npm test -- 09`), and CI for every lab (WORKBOOK_VERIFY_ALL=1): the time
// of a plain self-check does not grow with each lab added.

const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { spawn } = require('node:child_process');
const { track } = require('../scripts/harness/children');
const { capturedResults } = require('../scripts/lib/captures');
const { inPool } = require('./helpers/pool');
const { labs, findLab, ROOT, checkOf, marginsOf } = require('../scripts/lib/labs');
const { worstMargins } = require('../site/src/lib/margins');
const { readWalkthrough } = require('../scripts/lib/walkthrough');
const { lintWorkbook } = require('../scripts/lib/lab-lint');
const { provesChecksOf, namedLabs } = require('./helpers/lab-suite');
const { commands: COMMANDS } = require('../scripts/cli/commands');
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

/** Repository paths named in the text, e.g. `labs/NN-slug/app.js`. */
const REPO_PATH = /^(labs|solutions|scripts|test|site)\/[\w./-]+$/;

const LINT = lintWorkbook(ROOT);

// Each lab's walkthrough, read once (null when it is missing).
const WALKTHROUGHS = new Map(labs.map((lab) => [lab.slug, fs.existsSync(lab.readme) ? readWalkthrough(lab.readme) : null]));
const runnableBlocks = (lab) => WALKTHROUGHS.get(lab.slug)?.codeBlocks.filter((b) => b.runnable) ?? [];

// `npm test -- 09` (scripts/self-check.js) tests lab 09's walkthrough alone.
const NAMED = process.env.WORKBOOK_VERIFY_ALL === '1' ? [] : namedLabs();
const TESTED = NAMED.length ? labs.filter((lab) => NAMED.includes(lab.slug)) : labs;

// The labs whose snippets and command blocks this run starts (see the top).
const RUN_HERE = TESTED.filter((lab) => provesChecksOf(lab));
// Started by the first such lab's snippet test, for all of them at once.
let snippetRuns = null;
const snippetFailures = () => (snippetRuns ??= runAllSnippets(RUN_HERE));
const SNIPPET_COUNT = RUN_HERE.reduce((n, lab) => n + runnableBlocks(lab).length, 0);
const notRunHere = (lab, what) => `${what}: run once you start lab ${lab.id} (or now: npm test -- ${lab.id}; CI runs every lab's)`;

describe.each(TESTED.map((lab) => [lab.slug, lab]))('%s/README.md', (slug, lab) => {
  const walkthrough = WALKTHROUGHS.get(slug);

  // Sections in order, 3–4 hints, files named, excerpts that match: the same
  // rules as `npx workbook dev check` (scripts/lib/lab-lint.js), one list of them.
  test('follows the walkthrough rules of dev check (sections, hints, files named, excerpts)', () => {
    const readme = `labs/${lab.slug}/README.md`;
    expect(LINT.filter((p) => p.startsWith(readme))).toEqual([]);
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

  const runsHere = RUN_HERE.includes(lab);
  const tested = walkthrough ? walkthrough.codeBlocks.filter((b) => b.test) : [];
  const toRun = runnableBlocks(lab).length + tested.length;
  if (!runsHere && toRun) test.skip(notRunHere(lab, `its ${toRun} runnable block${toRun === 1 ? '' : 's'}`), () => {});
  if (runsHere) test('every JavaScript block that is not an excerpt runs as a complete program', async () => {
    if (!walkthrough) return; // reported by the first test
    expect(await snippetFailures().get(slug)).toEqual([]);
  }, 60_000 + 25_000 * SNIPPET_COUNT);

  // A command block that names the program that runs it (```sh test="…") is
  // run as written: e.g. a post-mortem command that needs a load from a second
  // terminal to end.
  if (tested.length && runsHere) test('every command block marked test="…" runs as written', async () => {
    const problems = [];
    for (const block of tested) {
      const why = await runCommandBlock(block);
      if (why) problems.push(`line ${block.line}: ${why}`);
    }
    expect(problems).toEqual([]);
  }, 30_000 + 90_000 * tested.length);

  test('every number with a count marker is the number the code defines', () => {
    if (!walkthrough) return; // reported by the first test
    const problems = [];
    for (const { number, written, key, line, inline, missing } of walkthrough.counts) {
      if (number === null) {
        problems.push(
          inline
            ? `line ${line}: the marker "count: ${key}" does not follow a number (write it directly after one, no space)`
            : missing
              ? `line ${line}: the marker names ${written} for "${key}", but its paragraph has no ${written}`
              : `line ${line}: "${key}" in the counts marker is not "<number as written> = <source>"`,
        );
        continue;
      }
      let expected;
      try {
        expected = countSource(lab, key);
      } catch (err) {
        problems.push(`line ${line}: "count: ${key}": ${err.message}`);
        continue;
      }
      // A measured figure (margins.json) is written rounded: compare at the written precision.
      const decimals = (written.split('.')[1] || '').length;
      if (Number(expected.toFixed(decimals)) !== number) problems.push(`line ${line}: says ${written} for "${key}", the source says ${expected}`);
    }
    expect(problems).toEqual([]);
  });

  test('raw HTML blocks do not swallow the Markdown inside them', () => {
    // A fence that starts inside an HTML block (no blank line after <summary>)
    // is shown as text on GitHub and by the site.
    if (!walkthrough) return; // reported by the first test
    const swallowed = walkthrough.htmlBlocks.filter((b) => /^\s*(```|~~~)/m.test(b.content)).map((b) => `line ${b.line}`);
    expect(swallowed).toEqual([]);
  });
});

/** A lab's captured check results (npm run capture), or null. */

/**
 * Where each count marker's number comes from. `responses`: how many
 * responses the lab's check judged in its captured results, the same for the
 * starter and the solution (a starter stopped by an early FAIL judged fewer,
 * and is left out: a pass always measures everything); `series <name>`: how
 * many samples the captured results' list `name` holds (e.g. the lone
 * requests a median is taken of), the same for both (early stops left out); `threshold <gate>`, `setting <name>`,
 * `standard-load <field>`: the check definition's own values. From the
 * measured margins (check/margins.json, `npm run bench -- --write`):
 * `worst-margin <gate> <side>`, the worst run of every bench as a factor
 * (as the site's "How the checks measure" page shows it); `bench-median
 * <gate> <side> <node major> [hogs]`, a bench's median figure (its ratio ×
 * the threshold, in the gate's unit). Those two are compared at the
 * precision the prose writes them.
 */
const COUNT_SOURCES = {
  responses(lab) {
    const results = capturedResults(lab);
    if (!results || !results.solution) throw new Error(`no captured check result for lab ${lab.id} (npm run capture -- --lab ${lab.id})`);
    const counts = new Set(completeRuns(results).map((r) => r.responses.length));
    if (counts.size !== 1) throw new Error(`the captured starter and solution judged different numbers of responses (${[...counts].join(', ')}): capture again`);
    return [...counts][0];
  },
  threshold(lab, gate) {
    const check = checkOf(lab);
    if (!check.gates[gate]) throw new Error(`the check has no gate "${gate}" (it has ${Object.keys(check.gates).join(', ')})`);
    return check.threshold(gate);
  },
  // `setting smallLines.0`: an item of a setting that is a list (a range's ends).
  setting(lab, name) {
    const value = name.split('.').reduce((v, key) => v?.[key], checkOf(lab).settings);
    if (typeof value !== 'number') throw new Error(`the check has no numeric setting "${name}"`);
    return value;
  },
  series(lab, name) {
    const results = capturedResults(lab);
    if (!results || !results.solution) throw new Error(`no captured check result for lab ${lab.id} (npm run capture -- --lab ${lab.id})`);
    const counts = new Set(completeRuns(results).map((r) => r.series?.[name]?.length));
    if (counts.has(undefined)) throw new Error(`the captured results have no list "${name}" in their series`);
    if (counts.size !== 1) throw new Error(`the captured starter and solution have different numbers of "${name}" samples (${[...counts].join(', ')}): capture again`);
    return [...counts][0];
  },
  'worst-margin'(lab, gate, side) {
    const row = worstMargins([{ id: gate }], marginsOf(lab))[0];
    if (!row[side]) throw new Error(`check/margins.json records no ${side} runs of the gate "${gate}"`);
    return row[side].margin;
  },
  'bench-median'(lab, gate, side, node, hogs = '0') {
    const bench = (marginsOf(lab)?.benches || []).find((b) => b.node.startsWith(`v${node}.`) && b.hogs === Number(hogs));
    const recorded = bench?.gates?.[gate]?.[side];
    if (!recorded) throw new Error(`check/margins.json has no bench of the gate "${gate}" (${side}) on Node ${node} with ${hogs} CPU hogs`);
    return recorded.ratio * checkOf(lab).threshold(gate);
  },
  'standard-load'(lab, field) {
    const value = checkOf(lab).standardLoad[field];
    if (typeof value !== 'number') throw new Error(`the standard load has no numeric field "${field}"`);
    return value;
  },
};

/** The captured results that measured everything: an early FAIL stops before some responses and series. */
function completeRuns(results) {
  return Object.values(results).filter((r) => !r.early);
}

function countSource(lab, key) {
  const [name, ...args] = key.split(/\s+/);
  if (!COUNT_SOURCES[name]) throw new Error(`unknown source "${name}" (known: ${Object.keys(COUNT_SOURCES).join(', ')})`);
  return COUNT_SOURCES[name](lab, ...args);
}

/**
 * Runs a walkthrough's JavaScript block as a program, from a temporary file
 * in the lab's folder (so the lab's packages resolve), with PORT=0.
 *
 * The snippet runs in a process group of its own (POSIX), and the whole
 * group is ended when it exits or times out: a snippet that starts an app
 * (which starts a database) and is killed half-way would otherwise leave
 * them running, holding the pipes this test reads, so that its 'close'
 * never came and the suite waited forever.
 * @returns {Promise<string|null>} why it failed, or null when it exited 0 within the time
 */
async function runSnippet(lab, block, timeoutMs = 20_000) {
  const file = path.join(lab.dir, `.docs-snippet-${block.line}-${process.pid}.js`);
  fs.writeFileSync(file, block.content);
  try {
    return await runNodeProgram(file, { timeoutMs, what: 'a snippet must end by itself, closing any server it starts' });
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/**
 * Runs the program a command block names (```sh test="labs/…"), which runs
 * the block's commands as written: their text is in WORKBOOK_DOCS_COMMAND.
 * @returns {Promise<string|null>} why it failed, or null when it exited 0 within the time
 */
function runCommandBlock(block, timeoutMs = 90_000) {
  const program = path.join(ROOT, block.test);
  if (!fs.existsSync(program)) return Promise.resolve(`the program that runs it, ${block.test}, does not exist`);
  return runNodeProgram(program, { timeoutMs, env: { WORKBOOK_DOCS_COMMAND: block.content }, what: 'the program must end by itself, and end what the commands started' });
}

/**
 * One Node program, from the repository's root with PORT=0, in a process
 * group of its own (POSIX): the whole group is ended when it exits or times
 * out. A snippet that starts an app (which starts a database) and is killed
 * half-way would otherwise leave them running, holding the pipes this test
 * reads, so that its 'close' never came and the suite waited forever.
 * @returns {Promise<string|null>} why it failed, or null when it exited 0 within the time
 */
async function runNodeProgram(file, { timeoutMs, env = {}, what }) {
  const ownGroup = process.platform !== 'win32';
  const child = track(spawn(process.execPath, [file], { cwd: ROOT, env: { ...process.env, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: ownGroup }));
  const endGroup = () => {
    try {
      if (ownGroup) process.kill(-child.pid, 'SIGKILL');
      else child.kill('SIGKILL');
    } catch {
      // already gone
    }
  };
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    endGroup();
  }, timeoutMs);
  const outcome = await new Promise((resolve) => {
    child.on('error', (err) => resolve({ error: err }));
    child.on('exit', (status, signal) => resolve({ status, signal }));
  });
  clearTimeout(timer);
  // What the program left behind goes with it; then its output is whole
  // (or as whole as a second's wait makes it).
  endGroup();
  await Promise.race([new Promise((resolve) => child.once('close', resolve)), new Promise((resolve) => setTimeout(resolve, 1000))]);
  const tail = output.trim().split('\n').slice(-8).join('\n');
  if (timedOut) return `still running after ${timeoutMs / 1000} s (${what})`;
  if (outcome.error) return outcome.error.message;
  if (outcome.status !== 0) return `exited with ${outcome.status ?? outcome.signal}:\n${tail}`;
  return null;
}

/**
 * Every lab's runnable snippets, started once for the whole file, four at a
 * time (most of a snippet's time is starting Node and waiting, so running
 * them side by side saves seconds without loading the machine): per lab, a
 * promise of its failures. Snippets that start a process (an app, and with
 * lab 11's its database) take seconds where the rest take a fraction of one:
 * they go first, so the pool does not end waiting on them alone.
 */
function runAllSnippets(labList, { atOnce = 4 } = {}) {
  const startsAProcess = (job) => (/\bspawn\(|\bfork\(/.test(job.block.content) ? 0 : 1);
  const jobs = labList.flatMap((lab) => runnableBlocks(lab).map((block) => ({ lab, block })));
  const order = [...jobs].sort((a, b) => startsAProcess(a) - startsAProcess(b));
  // A snippet that starts an app may wait for its first start after an
  // install (lab 11 prepares its database then: about 11 s alone on the
  // workbook's 2-vCPU machine, longer beside three other snippets), or
  // start a slow app several times (lab 14's compile-cache program starts
  // its starter four times, some 10 s each on that machine, on Node 22.1
  // and later).
  const outcomes = inPool(order, atOnce, (job) => runSnippet(job.lab, job.block, startsAProcess(job) === 0 ? 150_000 : 20_000));
  // Back in the jobs' own order, for the failures below.
  const done = outcomes.then((list) => jobs.map((job) => list[order.indexOf(job)]));
  const failures = (lab) => (outcomes) =>
    jobs.map((job, i) => [job, outcomes[i]]).filter(([job, why]) => job.lab === lab && why).map(([job, why]) => `line ${job.block.line}: ${why instanceof Error ? why.message : why}`);
  return new Map(labList.map((lab) => [lab.slug, done.then(failures(lab))]));
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

test('counts of responses and series leave out a run stopped by an early FAIL', () => {
  const results = { starter: { early: { stage: 'a second of load' }, responses: [{}] }, solution: { early: null, responses: [{}, {}, {}] } };
  expect(completeRuns(results).map((r) => r.responses.length)).toEqual([3]);
});

test('a count marker reads the number written directly before it', () => {
  const { countMarkers } = require('../scripts/lib/walkthrough');
  expect(countMarkers('compares 1,234<!-- count: responses --> answers')).toEqual([{ number: 1234, written: '1,234', key: 'responses', line: 1, inline: true }]);
  expect(countMarkers('compares 1,234 answers at 0.6×, and 3 more.<!-- counts: 1,234 = responses; 0.6 = threshold x; 7 = setting y -->')).toEqual([
    { number: 1234, written: '1,234', key: 'responses', line: 1, inline: false, missing: false },
    { number: 0.6, written: '0.6', key: 'threshold x', line: 1, inline: false, missing: false },
    { number: null, written: '7', key: 'setting y', line: 1, inline: false, missing: true },
  ]);
  expect(countMarkers('at 0.6<!--count: threshold x-->×')[0]).toMatchObject({ number: 0.6, key: 'threshold x' });
  expect(countMarkers('no number <!-- count: responses -->')[0].number).toBeNull();
  expect(() => countSource(labs[0], 'nonsense')).toThrow(/unknown source/);
});

test('a snippet that fails, or never ends, fails its test', async () => {
  const lab = labs[0];
  expect(await runSnippet(lab, { line: 0, content: "require('node:assert').strictEqual(process.env.PORT, '0');\n" })).toBeNull();
  expect(await runSnippet(lab, { line: 0, content: 'process.exit(3);\n' })).toMatch(/exited with 3/);
  expect(await runSnippet(lab, { line: 0, content: 'setInterval(() => {}, 1000);\n' }, 1000)).toMatch(/still running/);
  expect(fs.readdirSync(lab.dir).filter((f) => f.startsWith('.docs-snippet-'))).toEqual([]);
});

test('the checker of commands itself rejects what it should', () => {
  expect(workbookProblem(['check', '98'])).toMatch(/no lab/);
  expect(workbookProblem(['check'])).toMatch(/no lab/); // required
  expect(workbookProblem(['verify'])).toBeNull(); // optional
  expect(workbookProblem(['verify', '98'])).toMatch(/no lab/);
  expect(workbookProblem(['profile', '01', '--tool', 'vtune'])).toMatch(/no tool/);
  expect(workbookProblem(['check', '01', '--frobnicate'])).toMatch(/Unknown option/);
  expect(workbookProblem(['explode'])).toMatch(/no command/);
  expect(workbookProblem(['check', '01', '--json'])).toBeNull();
  expect(npmProblem(['run', 'nope'])).toMatch(/no npm script/);
});
