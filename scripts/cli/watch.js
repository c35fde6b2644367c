'use strict';
// `workbook watch`: save, and the check runs again. Each run is a child
// `workbook check --json`, so a change during a run can stop it cleanly (its
// apps exit with it) and start a fresh one. The watcher only reads labs/.

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { labs, relative } = require('../lib/labs');
const { nextLab } = require('../lib/progress');
const { track } = require('../harness/children');
const { nextStep, verdictText } = require('../checks/format');
const { formatNumber, needsText } = require('../lib/wording');
const { bold, dim, green, red, yellow } = require('../lib/style');
const { requireLab, appFileFor } = require('./options');

const CLI = path.join(__dirname, '..', 'workbook.js');
const DEBOUNCE_MS = 300;
const POLL_MS = 500;

/** Native file events are unreliable on WSL's /mnt/ drives and network file systems. */
function shouldPoll(dir) {
  if (process.platform !== 'linux') return false;
  try {
    const wsl = /microsoft/i.test(fs.readFileSync('/proc/version', 'utf8'));
    return wsl && dir.startsWith('/mnt/');
  } catch {
    return false;
  }
}

/**
 * Calls `onChange` when a file of interest changes: with fs.watch, or by
 * polling when asked to or when native watching fails.
 * @returns {{close: () => void, mode: string}}
 */
function watchFiles(files, onChange, { poll }) {
  if (!poll) {
    try {
      const dirs = [...new Set(files.map((f) => path.dirname(f)))];
      const watchers = dirs.map((dir) =>
        fs.watch(dir, (event, name) => {
          const file = name && path.join(dir, name.toString());
          if (file && files.includes(file)) onChange(file);
        }),
      );
      return { mode: 'file events', close: () => watchers.forEach((w) => w.close()) };
    } catch {
      // fall through to polling
    }
  }
  for (const file of files) fs.watchFile(file, { interval: POLL_MS }, (now, before) => now.mtimeMs !== before.mtimeMs && onChange(file));
  return { mode: `polling every ${POLL_MS} ms`, close: () => files.forEach((f) => fs.unwatchFile(f)) };
}

/** "1812 ms → 2.10 ms (−99.9%)" for each gate, against the previous run. */
function movement(result, previous) {
  return result.gates.map((g) => {
    const before = previous?.gates.find((p) => p.id === g.id);
    const mark = g.pass ? green('✓') : red('✗');
    let moved = '';
    if (before && Number.isFinite(before.value) && before.value > 0 && g.value > 0) {
      const ratio = g.value / before.value;
      const change = ratio >= 2 ? `${ratio.toFixed(0)}× higher` : ratio <= 0.5 ? `${(1 / ratio).toFixed(0)}× lower` : `${ratio >= 1 ? '+' : '−'}${Math.abs(100 * (ratio - 1)).toFixed(1)}%`;
      moved = dim(` (was ${formatNumber(before.value, g.unit)}, ${change})`);
    } else if (before && Number.isFinite(before.value)) {
      moved = dim(` (was ${formatNumber(before.value, g.unit)})`);
    }
    return `  ${mark} ${g.label}: ${bold(formatNumber(g.value, g.unit))} ${dim(needsText(g))}${moved}`;
  });
}

function summary(result, previous) {
  const lines = [];
  const problem = result.crash || result.error;
  if (problem) {
    lines.push(red(problem.message));
    if (problem.detail) lines.push(...problem.detail.split('\n').slice(0, 12).map((l) => dim(`  │ ${l}`)));
  }
  const wrong = result.responses.filter((r) => !r.pass);
  if (result.responses.length) {
    lines.push(wrong.length ? red(`${wrong.length} of ${result.responses.length} responses wrong:`) : `Responses: ${result.responses.length}/${result.responses.length} as expected`);
    for (const r of wrong.slice(0, 5)) lines.push(`  ✗ ${r.name}: expected ${r.expected}, got ${r.actual}`);
  }
  lines.push(...movement(result, previous));
  if (result.noise.length) lines.push(yellow(`Too busy to judge: ${result.noise.join('; ')}.`));
  lines.push(`Verdict: ${verdictText(result.verdict)}`);
  const next = nextStep(result, { watching: true });
  lines.push(`Next: ${next}`);
  return lines.join('\n');
}

module.exports = {
  usage: 'npx workbook watch [<lab>] [--app FILE] [--poll]',
  help: [
    'Watches labs/<lab>/ and runs the lab\'s check whenever a file there changes,',
    'showing each figure and how it moved since the last run. A change during a run',
    'restarts it. Without <lab>, watches the first lab you have not passed yet.',
    '  --app FILE   watch and check another file instead of your labs/<lab>/app.js',
    '  --poll       poll for changes instead of file events (for WSL and network drives)',
  ],
  options: { app: { type: 'string' }, poll: { type: 'boolean' } },
  async run({ values, positionals }) {
    const lab = positionals[0] ? requireLab(positionals[0], this.usage) : nextLab() || labs[0];
    const app = appFileFor(lab, values, this.usage);
    // The app and, for the learner's own app, the lab's other files (a template).
    const files = app === lab.app ? fs.readdirSync(lab.dir, { recursive: true }).map((f) => path.join(lab.dir, f)).filter((f) => fs.statSync(f).isFile() && !f.endsWith('README.md')) : [app];
    const poll = values.poll || shouldPoll(path.dirname(app));

    let running = null;
    let previous = null;
    let timer = null;
    let runs = 0;

    const start = () => {
      runs += 1;
      const number = runs;
      console.log(`\n${bold(`Run ${number}`)} ${dim(`· ${new Date().toLocaleTimeString()} · checking ${relative(app)}`)}`);
      const args = [CLI, 'check', lab.id, '--json', ...(app === lab.app ? [] : ['--app', app])];
      const child = track(spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } }));
      let stdout = '';
      let errTail = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => {
        errTail = (errTail + d).slice(-4000);
        process.stdout.write(dim(String(d)));
      });
      running = child;
      // 'close', not 'exit': the JSON on stdout is complete only once the pipes close.
      child.on('close', (code, signal) => {
        if (running !== child) return; // superseded by a newer run
        running = null;
        let result;
        try {
          result = JSON.parse(stdout);
        } catch {
          console.log(red(`The check itself stopped (${signal || `exit code ${code}`}):`));
          console.log(dim(errTail.trim().split('\n').slice(-8).join('\n')));
          return;
        }
        console.log(summary(result, previous));
        if (!result.crash && !result.error) previous = result;
        console.log(dim(`\nWatching ${relative(lab.dir)}/ (${watcher.mode}). Save to check again; Ctrl-C to stop.`));
      });
    };

    const onChange = (file) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (running) {
          console.log(yellow(`\n${relative(file)} changed during the check: starting over.`));
          const old = running;
          running = null;
          old.kill('SIGTERM');
        } else {
          console.log(dim(`\n${relative(file)} changed.`));
        }
        start();
      }, DEBOUNCE_MS);
    };

    const watcher = watchFiles(files, onChange, { poll });
    console.log(`${bold(`Lab ${lab.id} · ${lab.title}`)}\n${dim(`Watching ${relative(lab.dir)}/ (${watcher.mode}). Every save runs the check. Ctrl-C stops.`)}`);
    start();
    await new Promise(() => {}); // until Ctrl-C: the CLI's signal handling ends the child checks
    return 0;
  },
};
