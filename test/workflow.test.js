'use strict';
// The loop around the exercise: watch, hint, list, diff, solution, doctor,
// verify (its full run, minutes of checks, is in test/extended/verify.test.js).
// Everything runs as a learner would (the CLI in a child process), with its
// progress record in a scratch file and its apps in scratch copies: the
// tests never touch labs/ or the learner's own record.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT, labs, checkOf } = require('../scripts/lib/labs');
const { readWalkthrough, readWalkthroughSection } = require('../scripts/lib/walkthrough');
const { startCli, runCli, waitForOutput } = require('./helpers/cli');
const { processesRunning } = require('./helpers/leftovers');
const { removeTemp } = require('../scripts/harness/temp');
const { workbookWithQuickLab } = require('./helpers/quick-lab');

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-workflow-'));
const env = { WORKBOOK_PROGRESS_FILE: path.join(scratch, 'progress.json') };
// The tests use labs from the list, not by name: any lab has what they exercise.
const lab01 = labs[0];
const other = labs[1];
const third = labs[2];

afterAll(() => removeTemp(scratch));

describe('hint', () => {
  test('walks the ladder one hint at a time, from the README, and remembers', async () => {
    const hints = readWalkthrough(lab01.readme).hints;
    for (let i = 1; i <= hints.length + 1; i++) {
      const { code, stdout } = await runCli(['hint', lab01.id], { env });
      expect(code).toBe(0);
      const shown = Math.min(i, hints.length);
      expect(stdout).toContain(`hint ${shown} of ${hints.length}`);
      expect(stdout).not.toContain(`hint ${shown - 1} of`); // only the new one
      // The README's Markdown, as the terminal shows it: inline code keeps
      // its backticks (so it still reads as code without colour).
      expect(stdout.replace(/\s+/g, ' ')).toContain(hints[shown - 1].split(/\s+/).slice(0, 6).join(' '));
    }
    const again = await runCli(['hint', lab01.id, '--again'], { env });
    for (let i = 1; i <= hints.length; i++) expect(again.stdout).toContain(`hint ${i} of ${hints.length}`);
  });
});

describe('list', () => {
  test('shows not started / in progress / passing, with the best figure and when', async () => {
    const record = {
      labs: {
        [other.slug]: {
          last: { verdict: 'fail', at: new Date(Date.now() - 5 * 60000).toISOString(), appHash: 'x', headline: { id: 'throughput-ratio', label: 'throughput vs the reference', value: 0.17, unit: '×', pass: false, margin: 3.5 }, gates: {} },
          best: { verdict: 'fail', at: new Date(Date.now() - 5 * 60000).toISOString(), appHash: 'x', headline: { id: 'throughput-ratio', label: 'throughput vs the reference', value: 0.17, unit: '×', pass: false, margin: 3.5 }, gates: {} },
        },
      },
    };
    const file = path.join(scratch, 'list-progress.json');
    fs.writeFileSync(file, JSON.stringify(record));
    const { code, stdout } = await runCli(['list'], { env: { WORKBOOK_PROGRESS_FILE: file } });
    expect(code).toBe(0);
    // "not started" while labs/ holds the shipped starter (a fresh clone),
    // "in progress" when the learner has changed it: the record's best either way.
    expect(stdout).toMatch(new RegExp(`${other.id} {2}${escape(other.title)}\\s+(not started|in progress)\\s+best: throughput vs the reference 0\\.17 × \\(fail, 5 min ago\\)`));
  });
});

describe('progress: the state of a lab follows its file', () => {
  // In this process, with a record in the scratch folder and the lab's app
  // a scratch file (the real labs/ are the learner's).
  const app = path.join(scratch, 'state-app.js');
  const lab = { ...other, app };
  const { blobId, shippedContent } = require('../scripts/lib/shipped');
  let progress;
  beforeAll(() => {
    jest.isolateModules(() => {
      process.env.WORKBOOK_PROGRESS_FILE = path.join(scratch, 'state-progress.json');
      progress = require('../scripts/lib/progress');
      delete process.env.WORKBOOK_PROGRESS_FILE;
    });
  });
  const gate = (id, pass, margin, value = 1) => ({ id, label: id, value, unit: 'ms', pass, margin });
  const result = (verdict, gates) => ({ verdict, startedAt: new Date().toISOString(), gates });
  const lessonGate = checkOf(other).starterFails[0];
  const sideGate = 'another-gate';

  test('a pass is told by the lesson\'s gate; a file put back as it passed passes again; the starter put back is not started', () => {
    fs.writeFileSync(app, '// my fix, first try\n');
    progress.recordCheck(lab, result('pass', [gate(lessonGate, true, 9, 5), gate(sideGate, true, 1.5, 50)]), { app });
    expect(progress.stateOf(lab).state).toBe('passing');
    // The best says the lesson's figure, not the side gate nearest its threshold.
    expect(progress.stateOf(lab).entry.best.headline.id).toBe(lessonGate);

    fs.writeFileSync(app, '// my fix, second try\n');
    progress.recordCheck(lab, result('fail', [gate(lessonGate, false, 2), gate(sideGate, true, 3)]), { app });
    expect(progress.stateOf(lab).state).toBe('in-progress');
    // After a fail, the headline is what failed; the best stays the pass.
    expect(progress.stateOf(lab).entry.last.headline).toMatchObject({ id: lessonGate, pass: false });
    expect(progress.stateOf(lab).entry.best.verdict).toBe('pass');

    fs.writeFileSync(app, '// my fix, first try\n'); // put back as it was when it passed
    expect(progress.stateOf(lab).state).toBe('passing');

    const starter = shippedContent(other);
    if (!starter.error) {
      fs.writeFileSync(app, starter.content); // `reset`: the shipped starter again
      expect(blobId(fs.readFileSync(app, 'utf8'))).toBe(blobId(starter.content));
      expect(progress.stateOf(lab).state).toBe('not-started');
      expect(progress.stateOf(lab).entry.best.verdict).toBe('pass'); // the record is kept
    }
  });

  test('of two fails, the best is the one nearer its threshold', () => {
    const otherLab = { ...third, app };
    fs.writeFileSync(app, '// a try\n');
    progress.recordCheck(otherLab, result('fail', [gate('g', false, 2)]), { app });
    progress.recordCheck(otherLab, result('fail', [gate('g', false, 8)]), { app });
    expect(progress.stateOf(otherLab).entry.best.headline.margin).toBe(2);
  });
});

describe('diff', () => {
  test('against the shipped starter, and against the solution on request', async () => {
    const mine = await runCli(['diff', third.id], { env });
    expect(mine.code).toBe(0);
    if (/not changed/.test(mine.stdout)) expect(mine.stdout).toContain(`You have not changed labs/${third.slug}/app.js yet.`);
    const theirs = await runCli(['diff', third.id, '--solution'], { env });
    expect(theirs.stdout).toMatch(new RegExp(`^--- solutions/${third.slug}/app\\.js$`, 'm'));
    expect(theirs.stdout).toMatch(new RegExp(`^\\+\\+\\+ labs/${third.slug}/app\\.js \\(yours\\)$`, 'm'));
    expect(theirs.stdout).toMatch(/^@@ /m);
    expect(theirs.stdout).not.toMatch(/\u001b\[/); // no colour codes when not on a terminal
  });
});

describe('solution', () => {
  test('before a pass it warns about spoiling the lab and shows nothing', async () => {
    const { code, stdout } = await runCli(['solution', third.id], { env });
    expect(code).toBe(0);
    expect(stdout).toMatch(/has not passed yet, so the solution would spoil the lab/);
    expect(stdout).not.toMatch(/Why it works/);
  });

  test('with --spoil (or after a pass) it shows the change and why it works', async () => {
    const { stdout } = await runCli(['solution', third.id, '--spoil'], { env });
    expect(stdout).toMatch(/^\+ /m); // a line the solution adds
    // The start of the walkthrough's "Why it works", as the terminal shows it.
    const why = readWalkthroughSection(third.readme, 'Why it works').split(/\s+/).slice(0, 4).join(' ').replace(/[`*_]/g, '');
    expect(stdout.replace(/\s+/g, ' ')).toContain(why);
  });
});

test('doctor reports one line per check, quickly, and passes on this machine', async () => {
  const { code, stdout, ms } = await runCli(['doctor'], { env });
  for (const label of ['Node.js', 'CPU core', 'Workbook packages', 'Clinic.js patches', 'Ports', 'Profilers', 'Linux perf', 'git', 'Disk space', 'Workbook site']) {
    expect(stdout).toMatch(new RegExp(`^  [✓!✗] (\\d+ )?${label}`, 'm'));
  }
  expect(code).toBe(stdout.includes('✗') ? 1 : 0);
  expect(stdout).toMatch(/Ready for the labs\./);
  // A guard against a hang, not a speed claim: doctor takes a few seconds.
  expect(ms).toBeLessThan(60_000);
});

test('verify refuses a lab that does not exist, in one sentence', async () => {
  const { code, stdout, stderr } = await runCli(['verify', '99'], { env });
  expect(code).toBe(2);
  expect(stdout + stderr).toMatch(/There is no lab "99"\. The labs are: /);
});

// watch runs a real check on every save: here the quick lab's (one second
// of measuring, test/fixtures/quick-lab/) in a copy of the workbook, not a
// real lab's five to ten seconds, which their own verdict suites measure.
describe('watch', () => {
  let quick;
  let app;
  let watcher;

  beforeAll(() => {
    quick = workbookWithQuickLab();
    // Beside the lab's own files, so the app's require('./spin') resolves.
    app = path.join(quick.root, 'labs', '90-quick-check', 'mine.js');
    fs.writeFileSync(app, quick.solution);
  });
  afterAll(async () => {
    if (watcher) {
      watcher.child.kill('SIGINT');
      await watcher.done;
    }
    expect(processesRunning(quick.root)).toEqual([]);
    quick.remove();
  });

  const runsSoFar = () => (watcher.output().match(/Verdict: /g) || []).length;
  const nextVerdict = async (after) => {
    await waitForOutput(watcher, () => runsSoFar() > after, 60_000);
    const out = watcher.output();
    return out.slice(out.lastIndexOf('\nRun '));
  };

  test('runs the check at once', async () => {
    watcher = startCli(['watch', quick.id, '--app', app], { env, script: quick.script });
    const first = await nextVerdict(0);
    expect(first).toMatch(/Verdict: PASS/);
  }, 60_000);

  test('a syntax error shows the error, and the watcher carries on', async () => {
    const before = runsSoFar();
    fs.writeFileSync(app, quick.solution.replace("app.get('/health', (req, res) => res.send('ok'));", "app.get('/health', (req, res) => {{ res.send('ok'));"));
    const run = await nextVerdict(before);
    expect(watcher.output()).toMatch(/mine\.js changed\./);
    expect(run).toMatch(/The app has a syntax error, so it could not start\./);
    expect(run).toMatch(/Verdict: FAIL/);
    expect(watcher.child.exitCode).toBeNull(); // still watching
  }, 60_000);

  test('a save during a run stops that run and starts over, and the figures move against the last measured run', async () => {
    const before = runsSoFar();
    fs.writeFileSync(app, quick.solution);
    await waitForOutput(watcher, (out) => out.lastIndexOf('Calibrating') > out.lastIndexOf('Verdict: '), 20_000);
    fs.writeFileSync(app, quick.starter);
    const run = await nextVerdict(before);
    expect(watcher.output()).toMatch(/changed during the check: starting over\./);
    expect(runsSoFar()).toBe(before + 1); // the interrupted run gave no verdict
    expect(run).toMatch(/Verdict: FAIL/);
    // Against the first run's pass: the syntax error measured nothing.
    expect(run).toMatch(/fastest lone \/work request: .* \(was [\d.]+ ms, \d+× higher\)/);
  }, 90_000);
});

/** A string as a literal inside a RegExp. */
function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
