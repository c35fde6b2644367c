'use strict';
// Author tooling: `dev check` lints the real workbook clean and fast; in a
// temporary copy, `dev new` scaffolds a lab that, once only its own files are
// written, passes `dev check`, is listed, and reaches the site's data (page,
// charts, trainers' notes) without any shared file being edited; and each
// kind of mistake is one clear line.

const fs = require('node:fs');
const path = require('node:path');
const { ROOT, labs } = require('../scripts/lib/labs');
const { runCli } = require('./helpers/cli');
const { SKIP, copyWorkbook, removeCopy } = require('./helpers/workbook-copy');

function lines(problems, pattern) {
  return problems.filter((p) => pattern.test(p));
}

test('dev check: the workbook itself is clean, and quick', async () => {
  const started = Date.now();
  const { code, stdout, stderr } = await runCli(['dev', 'check']);
  expect({ code, stdout, stderr }).toMatchObject({ code: 0 });
  expect(stdout).toMatch(new RegExp(`dev check: ${labs.length} labs, no problems`));
  // It measures nothing, so it takes about a second anywhere; this only
  // catches a dev check that started measuring or hangs.
  expect(Date.now() - started).toBeLessThan(30_000);
});

test('the GitHub Classroom workflow grades every lab with a command that exists', () => {
  const workflow = fs.readFileSync(path.join(ROOT, '.github', 'workflows', 'classroom.yml'), 'utf8');
  const commands = [...workflow.matchAll(/^\s+command: (.*)$/gm)].map((m) => m[1]);
  expect(commands).toEqual(labs.map((lab) => `npx workbook check ${lab.id}`));
  const { commands: COMMANDS } = require('../scripts/cli/commands');
  const { findLab } = require('../scripts/lib/labs');
  for (const command of commands) {
    const [, , name, id] = command.split(' ');
    expect(COMMANDS[name]).toBeDefined();
    expect(findLab(id)).toBeDefined();
  }
  // Every step named in the reporter exists, and names with a colon are quoted (YAML).
  const ids = [...workflow.matchAll(/^\s+id: (\S+)$/gm)].map((m) => m[1]);
  expect(workflow).toContain(`runners: ${ids.join(',')}`);
  for (const m of workflow.matchAll(/^\s+- name: (.*)$/gm)) if (m[1].includes(': ')) expect(m[1]).toMatch(/^'.*'$/);
});

describe('in a temporary copy of the workbook', () => {
  let root;
  beforeAll(() => {
    root = copyWorkbook();
  });
  afterAll(() => removeCopy(root));

  // Runs the copy's own CLI, so it reads the copy's labs (each run a fresh
  // process: it sees the files as they are now).
  const cli = (args) => runCli(args, { script: path.join(root, 'scripts', 'workbook.js') });
  const devCheck = async () => (await cli(['dev', 'check'])).stdout.split('\n').filter(Boolean);

  test('dev new scaffolds a lab; with its own files written it passes dev check, is listed and reaches the site', async () => {
    const shared = ['scripts', 'site', 'test'].flatMap((d) => snapshot(path.join(root, d)));

    const made = await cli(['dev', 'new', '98', 'demo-lab', '--title', 'A demo lab']);
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/labs\/98-demo-lab\/check\/index\.js/);

    // The scaffold is a start, not a lab: its TODOs are reported.
    const before = await devCheck();
    expect(lines(before, /98-demo-lab\/README\.md:\d+: still has a TODO/)).toHaveLength(1);
    expect(lines(before, /\(98-demo-lab\): "teaches" still has the scaffold's TODO/)).toHaveLength(1);

    // The author writes the lab's own files (and what it teaches), nothing else.
    const readme = path.join(root, 'labs', '98-demo-lab', 'README.md');
    fs.writeFileSync(readme, fs.readFileSync(readme, 'utf8').replace(/TODO:?/g, 'Written.'));
    const entries = path.join(root, 'labs', 'labs.json');
    fs.writeFileSync(entries, fs.readFileSync(entries, 'utf8').replace('TODO: what the lab teaches', 'a demo'));
    expect((await cli(['dev', 'tables'])).code).toBe(0);
    expect(await devCheck()).toEqual([expect.stringMatching(new RegExp(`^dev check: ${labs.length + 1} labs, no problems`))]);

    const list = await cli(['list']);
    expect(list.stdout).toMatch(/98\s+A demo lab/);

    // The site's data for the new lab: its page, its charts, its trainers' notes.
    const plugin = require(path.join(root, 'site', 'plugins', 'workbook', 'index.js'));
    const data = await plugin().loadContent();
    const lab = data.labs.find((l) => l.slug === '98-demo-lab');
    expect(lab).toMatchObject({ title: 'A demo lab', hasReadme: true });
    expect(lab.charts.map((c) => c.kind)).toEqual(['gate-bars']);
    expect(lab.trainers.demoHtml).toMatch(/projector/);

    // Shared files were not edited (the metadata entry, the shipped-starter
    // record and the README's table are the generated exceptions).
    const after = ['scripts', 'site', 'test'].flatMap((d) => snapshot(path.join(root, d)));
    const changed = after.filter((f) => !shared.some((s) => s.file === f.file && s.hash === f.hash)).map((f) => path.relative(root, f.file));
    expect(changed).toEqual(['scripts/lib/shipped-starters.json']);
  });

  test('dev check catches each mistake with one clear line', async () => {
    const [first, , thirdLab] = labs;
    const lab = path.join(root, 'labs', first.slug);
    const readme = path.join(lab, 'README.md');
    const original = fs.readFileSync(readme, 'utf8');
    const edit = (file, from, to) => {
      const text = fs.readFileSync(file, 'utf8');
      expect(text).toContain(from);
      fs.writeFileSync(file, text.replace(from, to));
    };

    // A missing walkthrough section.
    edit(readme, '## Going further', '## Further reading');
    expect(lines(await devCheck(), new RegExp(`${first.slug}/README\\.md: missing the section "Going further"`))).toHaveLength(1);
    fs.writeFileSync(readme, original);

    // A hint ladder of 2.
    const hints = original.slice(original.indexOf('## Hints'), original.indexOf('## Fix'));
    const third = hints.match(/^3\. /m).index;
    fs.writeFileSync(readme, original.replace(hints, `${hints.slice(0, third)}\n`));
    expect(lines(await devCheck(), new RegExp(`${first.slug}/README\\.md: a hint ladder of 2; it needs 3 or 4 hints`))).toHaveLength(1);
    fs.writeFileSync(readme, original);

    // A walkthrough whose time is not the lab table's.
    const minutes = /- \*\*Time:\*\* about (\d+) minutes/.exec(original)[1];
    edit(readme, `about ${minutes} minutes`, `about ${Number(minutes) + 5} minutes`);
    expect(lines(await devCheck(), new RegExp(`${first.slug}/README\\.md: says about ${Number(minutes) + 5} minutes, labs/labs\\.json says ${minutes}`))).toHaveLength(1);
    fs.writeFileSync(readme, original);

    // A missing capture.
    const index = path.join(root, 'site', 'static', 'captures', 'index.json');
    const captures = JSON.parse(fs.readFileSync(index, 'utf8'));
    const kept = captures.labs[first.slug].files;
    const dropped = kept.find((f) => f.kind !== 'autocannon-before' && f.kind !== 'autocannon-after' && f.kind !== 'flamegraph').kind;
    captures.labs[first.slug].files = kept.filter((f) => f.kind !== dropped);
    fs.writeFileSync(index, JSON.stringify(captures));
    expect(lines(await devCheck(), new RegExp(`${first.slug}/check/index\\.js: the capture "${dropped}" is missing`))).toHaveLength(1);
    captures.labs[first.slug].files = kept;
    fs.writeFileSync(index, JSON.stringify(captures));

    // A check module without standardLoad.
    const check = path.join(lab, 'check', 'index.js');
    const checkSource = fs.readFileSync(check, 'utf8');
    edit(check, '    standardLoad,\n', '');
    expect(lines(await devCheck(), new RegExp(`${first.slug}/check/index\\.js: .*no standardLoad`))).toHaveLength(1);
    fs.writeFileSync(check, checkSource);

    // A lab missing from the metadata.
    const metadata = path.join(root, 'labs', 'labs.json');
    const entries = fs.readFileSync(metadata, 'utf8');
    fs.writeFileSync(metadata, JSON.stringify(JSON.parse(entries).filter((e) => e.slug !== thirdLab.slug), null, 2));
    expect(await devCheck()).toEqual(expect.arrayContaining([`labs/${thirdLab.slug}: a lab folder missing from labs/labs.json (add its entry there)`]));
    fs.writeFileSync(metadata, entries);

    // The reference fix in plain sight: an excerpt of the solution, or a
    // block holding one of its lines, in the raw walkthrough.
    const solutionFile = path.join(root, 'solutions', first.slug, 'app.js');
    const solutionSource = fs.readFileSync(solutionFile, 'utf8');
    const starterLines = new Set(fs.readFileSync(path.join(lab, 'app.js'), 'utf8').split('\n').map((l) => l.trim()));
    const fixLine = solutionSource
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length > 25 && !starterLines.has(l) && !/^(\/\/|\*|const .*require\()/.test(l));
    edit(readme, '## Verify', `\`\`\`js title="solutions/${first.slug}/app.js"\n${fixLine}\n\`\`\`\n\n\`\`\`js\n${fixLine}\n\`\`\`\n\n## Verify`);
    const shown = lines(await devCheck(), new RegExp(`${first.slug}/README\\.md:\\d+: the reference fix in plain sight`));
    expect(shown).toHaveLength(2);
    expect(shown.join('\n')).toMatch(/quotes solutions\/.*solution-code directive/);
    expect(shown.join('\n')).toContain(fixLine);
    fs.writeFileSync(readme, original);

    // A solution-code directive whose lines moved: dev pin follows them; whose
    // lines changed: dev check says so until they are pinned again.
    expect(original).toMatch(/<!-- solution-code:/);
    fs.writeFileSync(solutionFile, `// a new first line\n${solutionSource}`);
    expect(lines(await devCheck(), /solution-code: .* moved to \d+-\d+ \(run npx workbook dev pin\)/).length).toBeGreaterThan(0);
    expect((await cli(['dev', 'pin'])).code).toBe(0);
    expect(await devCheck()).toEqual([expect.stringMatching(/no problems/)]);
    const pinned = fs.readFileSync(readme, 'utf8');
    const firstExcerpt = /^solutions\/\S+ (\d+)/m.exec(pinned.slice(pinned.indexOf('<!-- solution-code:')));
    const changed = fs.readFileSync(solutionFile, 'utf8').split('\n');
    changed[Number(firstExcerpt[1]) - 1] += ' // changed';
    fs.writeFileSync(solutionFile, changed.join('\n'));
    expect(lines(await devCheck(), /solution-code: .* changed since the walkthrough pinned it/)).toHaveLength(1);
    expect((await cli(['dev', 'pin'])).code).toBe(1); // a change is not accepted silently
    expect((await cli(['dev', 'pin', '--accept'])).code).toBe(0);
    expect(await devCheck()).toEqual([expect.stringMatching(/no problems/)]);
    fs.writeFileSync(solutionFile, solutionSource);
    fs.writeFileSync(readme, original);

    expect(await devCheck()).toEqual([expect.stringMatching(/no problems/)]);
  });
});

/** Every file under dir with a hash of its content. */
function snapshot(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath || entry.path, entry.name);
    if (file.split(path.sep).some((part) => SKIP.has(part))) continue;
    out.push({ file, hash: require('node:crypto').createHash('sha1').update(fs.readFileSync(file)).digest('hex') });
  }
  return out;
}
