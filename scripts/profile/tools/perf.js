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
const { removeTemp } = require('../../harness/temp');
const { UsageError } = require('../../cli/errors');
const { withApp, applyStandardLoad } = require('../session');
const { relative } = require('../../lib/labs');
const { flameGraphSvg } = require('../read/flamegraph-svg');
const { table } = require('../read/table');

const ALTERNATIVE = 'Use --tool cpu instead: V8\'s own profiler, on every system (native frames show as the JS call that entered them).';

function systemName(platform) {
  return { darwin: 'macOS', win32: 'Windows' }[platform] || platform;
}

/** Whether `release` (os.release()) is a WSL kernel: Microsoft's builds say so in their name. */
function isWsl(release) {
  return /microsoft|wsl/i.test(release);
}

/**
 * What a failed perf command's stderr means, as one sentence with what to do.
 * @param {string} stderr what perf (or Ubuntu's /usr/bin/perf wrapper) printed
 * @param {{release?: string, paranoid?: string}} [machine] os.release() and
 *   the content of /proc/sys/kernel/perf_event_paranoid
 */
function perfFailure(stderr, { release = os.release(), paranoid = readParanoid() } = {}) {
  const text = String(stderr || '');
  // Ubuntu's /usr/bin/perf is a wrapper that looks for a perf built for the
  // running kernel, prints this warning and exits 2 when there is none.
  if (/perf not found for kernel/i.test(text)) {
    return isWsl(release)
      ? `perf is installed, but not for this WSL kernel (${release}), and Ubuntu has no linux-tools package for Microsoft's kernels: on WSL2, build perf from the kernel's own sources (github.com/microsoft/WSL2-Linux-Kernel, tools/perf) and put it first on your PATH.`
      : `perf is installed, but not for the running kernel (${release}): install the matching tools (on Ubuntu: sudo apt-get install linux-tools-$(uname -r)), or reboot into the kernel they were installed for.`;
  }
  // perf's own message names the setting: "Access to performance monitoring
  // and observability operations is limited. Consider adjusting
  // /proc/sys/kernel/perf_event_paranoid setting ..."
  if (/perf_event_paranoid|Access to performance monitoring/i.test(text)) {
    return `perf is installed but the kernel does not let this user profile (kernel.perf_event_paranoid = ${paranoid}); run as root or lower it with sudo sysctl kernel.perf_event_paranoid=1.`;
  }
  const last = text.trim().split('\n').filter(Boolean).pop();
  return `perf could not record here${last ? `: ${last.trim()}` : ''}.`;
}

function readParanoid() {
  try {
    return fs.readFileSync('/proc/sys/kernel/perf_event_paranoid', 'utf8').trim();
  } catch {
    return '?'; // not readable
  }
}

/**
 * Why perf cannot run here, in one sentence with what to do, or null when it
 * can. `platform`, `release` and `run` (spawnSync's signature) stand in for
 * the machine in tests.
 */
function unavailable({ platform = process.platform, release = os.release(), run = spawnSync } = {}) {
  if (platform !== 'linux') return `perf is a Linux tool and this is ${systemName(platform)}.`;
  const version = run('perf', ['--version'], { encoding: 'utf8' });
  if (version.error) {
    return `perf is not installed (on Debian: sudo apt-get install linux-perf; on Ubuntu: sudo apt-get install linux-tools-$(uname -r))${isWsl(release) ? '; on WSL2 it must be built for Microsoft\'s kernel (github.com/microsoft/WSL2-Linux-Kernel, tools/perf)' : ''}.`;
  }
  if (version.status !== 0) return perfFailure(`${version.stderr || ''}${version.stdout || ''}`, { release });
  const probe = path.join(os.tmpdir(), `workbook-perf-${process.pid}.data`);
  const trial = run('perf', ['record', '-q', '-e', 'cpu-clock', '-o', probe, '--', 'true'], { encoding: 'utf8' });
  removeTemp(probe);
  if (trial.status !== 0) return perfFailure(trial.stderr, { release });
  return null;
}

/**
 * Removes the output folder the CLI made (profiles/<lab>/<tool>-<time>/) for
 * a run that never started, and profiles/<lab>/ and profiles/ if that leaves
 * them empty.
 */
function removeEmptyOutput(dir) {
  for (const folder of [dir, path.dirname(dir), path.dirname(path.dirname(dir))]) {
    try {
      fs.rmdirSync(folder); // only ever removes an empty folder
    } catch {
      return;
    }
  }
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

/**
 * Kinds of native work a flame graph's towers are made of, named for the
 * learner, each by the frames that mark it (perf's symbol names). They are
 * the towers lab 12's walkthrough reads (TLS through OpenSSL), and two any
 * app has (garbage collection, system calls). OpenSSL's names differ between
 * its versions (Node 20 bundles 3.0, Node 22.20+ and 24.5+ bundle 3.5), so
 * each pattern is one both name.
 */
const FAMILIES = [
  ['OpenSSL: TLS handshakes (its state machine, with the work below it)', /^(state_machine|ossl_statem_|SSL_do_handshake)/],
  ['OpenSSL: certificates and keys decoded from DER (its ASN.1 decoder, OSSL_DECODER)', /d2i|OSSL_DECODER|^decoder_process/],
  ['OpenSSL: new secure contexts (SSL_CTX_new)', /^SSL_CTX_new/],
  ['OpenSSL: elliptic-curve arithmetic (ECDHE key shares, ECDSA signatures)', /ecp_nistz256|^ossl_ec_|^ossl_ecx|x25519|^ecdsa|^ECDSA_/],
  ['OpenSSL: ML-KEM, the post-quantum half of an X25519MLKEM768 key share', /ml_kem|mlx_kem/],
  ['Node: a certificate turned into a JavaScript object (getPeerCertificate)', /X509ToObject|X509Certificate::toObject|TLSWrap::GetPeerCertificate/],
  ['V8: garbage collection', /^v8::internal::(Heap::CollectGarbage|ScavengerCollector|Scavenger::|MarkCompactCollector|MinorMarkSweepCollector|IncrementalMarking|ConcurrentMarking)/],
  ['the kernel: system calls (sockets, files, memory)', /^entry_SYSCALL_64/],
];

/**
 * The share of samples under each family: a sample counts once for every
 * family with a frame on its stack (families overlap: an ECDSA signature is
 * verified inside a handshake). Families under `minPct` are left out.
 * @param {Array<[string[], number]>} folded stacks from foldPerfScript()
 * @returns {Array<{family:string, samples:number, pct:number}>}
 */
function nativeFamilies(folded, { minPct = 0.5 } = {}) {
  const total = folded.reduce((a, [, n]) => a + n, 0);
  if (!total) return [];
  return FAMILIES.map(([family, pattern]) => {
    const samples = folded.filter(([stack]) => stack.some((frame) => pattern.test(frame))).reduce((a, [, n]) => a + n, 0);
    return { family, samples, pct: (100 * samples) / total };
  })
    .filter((f) => f.pct >= minPct)
    .sort((a, b) => b.samples - a.samples);
}

module.exports = {
  name: 'perf',
  summary: 'Linux perf with JIT symbols: native and JS frames in one flame graph (SVG)',
  unavailable,
  perfFailure,
  foldPerfScript,
  nativeFamilies,
  async run({ lab, file, dir, duration, progress, print, platform = process.platform }) {
    const why = unavailable({ platform });
    if (why) {
      removeEmptyOutput(dir);
      throw new UsageError(`${why} ${ALTERNATIVE}`);
    }
    const data = path.join(dir, 'perf.data');
    let mapFile = null; // the symbol map Node writes for perf (/tmp/perf-<pid>.map), removed after the run
    let script;
    try {
      script = await withApp({ lab, file, nodeArgs: ['--perf-basic-prof-only-functions'], progress }, async (app) => {
        mapFile = path.join(os.tmpdir(), `perf-${app.pid}.map`);
        progress(`perf record: sampling pid ${app.pid} at 199 Hz with call stacks`);
        const recorder = track(spawn('perf', ['record', '-q', '-F', '199', '-e', 'cpu-clock', '-g', '-p', String(app.pid), '-o', data], { stdio: ['ignore', 'ignore', 'pipe'] }));
        let recorderErr = '';
        recorder.stderr.on('data', (d) => (recorderErr += d));
        await new Promise((r) => setTimeout(r, 300));
        try {
          await applyStandardLoad({ lab, url: app.url, duration, progress });
          app.assertAlive('under load');
        } finally {
          recorder.kill('SIGINT');
          if (recorder.exitCode === null && recorder.signalCode === null) await once(recorder, 'close');
        }
        progress('perf script: turning samples into stacks (needs the app\'s symbol map)');
        const run = spawnSync('perf', ['script', '-i', data], { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
        if (run.status !== 0) throw new Error(perfFailure(`${recorderErr}${run.stderr || ''}`));
        fs.writeFileSync(path.join(dir, 'perf.script'), run.stdout);
        return run.stdout;
      });
    } finally {
      if (mapFile) removeTemp(mapFile);
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
    const families = nativeFamilies(folded);
    if (families.length) {
      print(
        'What the towers are (a sample counts once for every row with a frame on its stack)\n' +
          table(families.map((f) => [`${f.pct.toFixed(1)}%`, f.family]), ['under', 'work']),
      );
    }
    print(`${((100 * underApp) / Math.max(total, 1)).toFixed(0)}% of samples have a frame of ${relative(file)} on their stack (blue in the flame graph).`);
    return { open: svg, howToOpen: 'open the SVG in a browser; hover a box for its name and share' };
  },
};
