'use strict';
// Linux `perf`: the kernel's sampling profiler, which sees native frames
// (OpenSSL, libuv, V8 itself) as well as JavaScript. Node writes a symbol map
// for its JIT-compiled functions (--perf-basic-prof-only-functions) so perf
// can name them. Linux only, and only where the kernel lets this user
// profile; everywhere else the command says so and points to `cpu`.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { once } = require('node:events');
const { track } = require('../../harness/children');
const { withApp, applyStandardLoad } = require('../session');
const { relative } = require('../../lib/labs');
const { flameGraphSvg } = require('../read/flamegraph-svg');
const { table } = require('../read/table');

/** Why perf cannot run here, in one sentence, or null when it can. */
function unavailable() {
  if (process.platform !== 'linux') return `perf is a Linux tool and this is ${process.platform === 'darwin' ? 'macOS' : process.platform}.`;
  const version = spawnSync('perf', ['--version'], { encoding: 'utf8' });
  if (version.error) return 'perf is not installed (on Debian or Ubuntu: apt-get install linux-perf, or linux-tools-$(uname -r)).';
  const probe = path.join(os.tmpdir(), `workbook-perf-${process.pid}.data`);
  const trial = spawnSync('perf', ['record', '-q', '-e', 'cpu-clock', '-o', probe, '--', 'true'], { encoding: 'utf8' });
  fs.rmSync(probe, { force: true });
  if (trial.status !== 0) {
    let paranoid = '?';
    try {
      paranoid = fs.readFileSync('/proc/sys/kernel/perf_event_paranoid', 'utf8').trim();
    } catch {
      // not readable: keep '?'
    }
    return `perf is installed but the kernel does not let this user profile (kernel.perf_event_paranoid = ${paranoid}); run as root or lower it with sudo sysctl kernel.perf_event_paranoid=1.`;
  }
  return null;
}

/** `perf script` output → folded stacks (root first), leaf frames counted. */
function foldPerfScript(text) {
  const folded = new Map();
  const leaves = new Map();
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n').filter((l) => l.trim());
    if (lines.length < 2) continue;
    const frames = lines
      .slice(1)
      .map((l) => /^\s*[0-9a-f]+\s+(.+?)\s+\((.*)\)\s*$/.exec(l))
      .filter(Boolean)
      .map(([, symbol, dso]) => (symbol === '[unknown]' ? `[${path.basename(dso)}]` : symbol.replace(/\+0x[0-9a-f]+$/, '')));
    if (!frames.length) continue;
    const stack = frames.reverse();
    const key = stack.join(';');
    folded.set(key, (folded.get(key) || 0) + 1);
    leaves.set(stack[stack.length - 1], (leaves.get(stack[stack.length - 1]) || 0) + 1);
  }
  return { folded: [...folded].map(([key, count]) => [key.split(';'), count]), leaves };
}

module.exports = {
  name: 'perf',
  summary: 'Linux perf with JIT symbols: native and JS frames in one flame graph (SVG)',
  unavailable,
  async run({ lab, file, dir, duration, progress, print }) {
    const why = unavailable();
    if (why) {
      print(`${why} Use --tool cpu instead: V8's own profiler, on every system (native frames show as the JS call that entered them).`);
      return {};
    }
    const data = path.join(dir, 'perf.data');
    let mapFile = null; // the symbol map Node writes for perf (/tmp/perf-<pid>.map), removed after the run
    let script;
    try {
      script = await withApp({ file, nodeArgs: ['--perf-basic-prof-only-functions'], progress }, async (app) => {
        mapFile = path.join(os.tmpdir(), `perf-${app.pid}.map`);
        progress(`perf record: sampling pid ${app.pid} at 199 Hz with call stacks`);
        const recorder = track(spawn('perf', ['record', '-q', '-F', '199', '-e', 'cpu-clock', '-g', '-p', String(app.pid), '-o', data], { stdio: 'ignore' }));
        await new Promise((r) => setTimeout(r, 300));
        try {
          await applyStandardLoad({ lab, url: app.url, duration, progress });
          app.assertAlive('under load');
        } finally {
          recorder.kill('SIGINT');
          if (recorder.exitCode === null) await once(recorder, 'exit');
        }
        progress('perf script: turning samples into stacks (needs the app\'s symbol map)');
        const run = spawnSync('perf', ['script', '-i', data], { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
        if (run.status !== 0) throw new Error(`perf script failed: ${(run.stderr || '').trim().split('\n').pop()}`);
        fs.writeFileSync(path.join(dir, 'perf.script'), run.stdout);
        return run.stdout;
      });
    } finally {
      if (mapFile) fs.rmSync(mapFile, { force: true });
    }
    const { folded, leaves } = foldPerfScript(script);
    const total = [...leaves.values()].reduce((a, b) => a + b, 0);
    const svg = path.join(dir, 'flamegraph.svg');
    const appPath = path.resolve(file);
    fs.writeFileSync(svg, flameGraphSvg(folded, { title: `perf: ${relative(file)}`, highlight: (frame) => frame.includes(appPath) }));
    const underApp = folded.filter(([stack]) => stack.some((f) => f.includes(appPath))).reduce((a, [, n]) => a + n, 0);
    print(
      `Where the CPU was (leaf frames, ${total} samples)\n` +
        table([...leaves].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([frame, n]) => [`${((100 * n) / total).toFixed(1)}%`, frame.slice(0, 110)]), ['self', 'frame']),
    );
    print(`${((100 * underApp) / Math.max(total, 1)).toFixed(0)}% of samples have a frame of ${relative(file)} on their stack (blue in the flame graph).`);
    return { open: svg, howToOpen: 'open the SVG in a browser; hover a box for its name and share' };
  },
};
