'use strict';
// The `workbook` command line as a learner meets it.

const { labs } = require('../scripts/lib/labs');

// Any lab will do: the first in the list.
const first = labs[0];
const { runCli } = require('./helpers/cli');
const { workbookWithQuickLab } = require('./helpers/quick-lab');


describe('usage', () => {
  test('with no command, lists the commands', async () => {
    const { code, stdout } = await runCli([]);
    expect(code).toBe(0);
    for (const name of ['list', 'check', 'run', 'load', 'profile', 'reset']) expect(stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
  });

  test.each([
    [['check'], new RegExp(`Say which lab: ${first.id} \\(${first.slug}\\)`)],
    [['check', '42'], /There is no lab "42"/],
    [['check', first.id, '--bogus'], /Unknown option '--bogus'/],
    [['frobnicate'], /There is no command "frobnicate"/],
    [['run', first.id, '--app', 'x.js', '--solution'], /either --app or --solution/],
    [['profile', first.id], /Say which profiler with --tool/],
    [['profile', first.id, '--tool', 'cpu', '--duration', '0.5'], /--duration must be a number of seconds from 1 to 120, not "0.5"/],
    [['load', first.id, '--connections', '2.5'], /--connections must be a whole number/],
    [['profile', first.id, '--tool', 'cpu', '--max-old-space-size', '16'], /--max-old-space-size goes with --tool gc/],
    [['profile', first.id, '--tool', 'gc', '--max-old-space-size', '4'], /--max-old-space-size must be a whole number of MB from 8 to 65536, not "4"/],
    [['dev', 'new', '5'], /kebab-case slug/],
    [['load', first.id, '--url', 'http://example.com'], /must be a local address/],
  ])('%j is a usage error: one sentence, exit 2', async (args, message) => {
    const { code, stderr } = await runCli(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  test('`constructor` (a name every object inherits) is no command', async () => {
    const { code, stderr } = await runCli(['constructor']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/There is no command "constructor"/);
  });

  test('`help check` explains the options', async () => {
    const { code, stdout } = await runCli(['help', 'check']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/--json/);
  });
});

test('`list` shows every lab with its state', async () => {
  const { code, stdout } = await runCli(['list']);
  expect(code).toBe(0);
  expect(stdout).toMatch(/01 {2}Synchronous pbkdf2 blocks the event loop\s+(not started|in progress|passing)/);
  expect(stdout).toMatch(/^Next: /m);
});

// A real check through the CLI, of the quick lab (test/fixtures/quick-lab/,
// one second of measuring) in a copy of the workbook: what is tested is the
// CLI around the check; every real lab's check has its own verdict suite.
describe('`check --json`', () => {
  let quick;
  beforeAll(() => {
    quick = workbookWithQuickLab();
  });
  afterAll(() => quick.remove());

  test('prints one JSON object with every figure and the verdict, and exits 0 on a pass', async () => {
    const solution = `solutions/90-quick-check/app.js`;
    const { code, stdout, stderr } = await runCli(['check', quick.id, '--app', solution, '--json'], { script: quick.script });
    const result = JSON.parse(stdout);
    // On a failure, say what the check saw (its verdict, figures and progress).
    if (code !== 0) throw new Error(`exit ${code}, verdict ${result.verdict}: ${JSON.stringify(result.gates)} ${JSON.stringify(result.noise)}\n${stderr}`);
    expect(result).toMatchObject({ lab: '90-quick-check', verdict: 'pass', app: solution });
    expect(result.gates.map((g) => g.id)).toEqual(['work-latency']);
    for (const g of result.gates) expect(g).toEqual(expect.objectContaining({ value: expect.any(Number), threshold: expect.any(Number), pass: true }));
    expect(result.environment.node).toBe(process.version);
    expect(stderr).toMatch(/Calibrating/); // progress goes to stderr, keeping stdout pure JSON
  });

  test('exits 1 on a fail, with the same JSON', async () => {
    const { code, stdout } = await runCli(['check', quick.id, '--app', 'labs/90-quick-check/app.js', '--json'], { script: quick.script });
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ verdict: 'fail', gates: [{ id: 'work-latency', pass: false }] });
  });
});

test('`load` prints autocannon\'s table', async () => {
  const { code, stdout } = await runCli(['load', first.id, '--solution', '--duration', '1']);
  expect(code).toBe(0);
  expect(stdout).toMatch(/Latency/);
  expect(stdout).toMatch(/Req\/Sec/);
  expect(stdout).toMatch(/requests in/);
});

test('`load --url` says when the app stopped answering, rather than a table of zeros alone', async () => {
  const { spawn } = require('node:child_process');
  const { freePort } = require('../scripts/harness/app-process');
  const port = await freePort();
  const app = spawn(process.execPath, [require('node:path').join(__dirname, 'fixtures', 'load-apps', 'dies-after-300.js')], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    await new Promise((resolve) => app.stdout.once('data', resolve));
    const { code, stdout } = await runCli(['load', first.id, '--url', `http://127.0.0.1:${port}`, '--duration', '1']);
    expect(code).toBe(1);
    expect(stdout).toMatch(/stopped answering \d+\.\d s into the load: from then on every connection was refused \([\d,]+ attempts\)/);
    expect(stdout).toMatch(/look at the terminal it runs in/);
  } finally {
    app.kill();
  }
});

// Every `profile` tool, prof included, runs in test/extended/profile-tools.test.js.


describe('`npm test -- <lab>` names a lab as the workbook does', () => {
  const { jestArgs } = require('../scripts/self-check');
  test('1, 01, the folder name and the name without its number all mean lab 01 alone, with its walkthrough\'s tests (Jest alone would read "1" as labs 01, 10, 11 and 12)', () => {
    for (const name of ['1', '01', '01-sync-pbkdf2', 'sync-pbkdf2']) expect(jestArgs([name])).toEqual(['labs/01-sync-pbkdf2/', 'test/docs.test.js']);
    expect(jestArgs(['3', '09'])).toEqual(['labs/03-leaking-set/', 'labs/09-out-of-memory-export/', 'test/docs.test.js']);
  });
  test('Jest\'s own options and their values, and paths, pass through', () => {
    expect(jestArgs(['-t', '11', 'test/docs.test.js', '--testTimeout', '5'])).toEqual(['-t', '11', 'test/docs.test.js', '--testTimeout', '5']);
  });
});

describe('the command table', () => {
  const path = require('node:path');
  const { spawnSync } = require('node:child_process');
  const { commands, summaries } = require('../scripts/cli/commands');

  test('every command has a summary, and a module with its usage, help, options and run', () => {
    expect(Object.keys(commands)).toEqual(Object.keys(summaries));
    for (const [name, command] of Object.entries(commands)) {
      expect([name, typeof summaries[name]]).toEqual([name, 'string']);
      expect(command.usage).toMatch(new RegExp(`^(npx workbook|npm) ${name}\\b`)); // `npm start` is the README's
      expect(Array.isArray(command.help)).toBe(true);
      expect(typeof command.options).toBe('object');
      expect(typeof command.run).toBe('function');
    }
  });

  // `workbook help` is what a newcomer runs first: it reads the summaries
  // and loads no command's module (nor markdown-it, the profilers or the
  // site's server behind them).
  test('`help` loads no command module', () => {
    const cli = path.join(__dirname, '..', 'scripts', 'workbook.js');
    const probe = `process.on('exit', () => process.stderr.write(JSON.stringify(Object.keys(require.cache))));`;
    const { status, stderr } = spawnSync(process.execPath, ['-e', `${probe} process.argv.splice(1, 1, ${JSON.stringify(cli)}); require(${JSON.stringify(cli)})`, cli, 'help'], {
      encoding: 'utf8',
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    expect(status).toBe(0);
    const loaded = JSON.parse(stderr).map((file) => path.relative(path.join(__dirname, '..'), file).split(path.sep).join('/'));
    expect(loaded.filter((file) => file.startsWith('scripts/cli/'))).toEqual(['scripts/cli/errors.js', 'scripts/cli/commands.js']);
    expect(loaded.some((file) => file.includes('node_modules'))).toBe(false);
  });
});
