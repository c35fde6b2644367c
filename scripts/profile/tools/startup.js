'use strict';
// The start-up, profiled: `--cpu-prof` from the process's first line until
// every example request of the lab has been answered once (no load), with
// the start's timeline as the app's own clock saw it (performance.nodeTiming
// and the probe's marks) and where its CPU went, by what the app's top level
// requires and calls. Waiting shows in the timeline, not in the profile.

const fs = require('node:fs');
const path = require('node:path');
const { withApp } = require('../session');
const { get } = require('../../harness/http-client');
const { readCpuProfile, foldCpuProfile } = require('../read/cpuprofile');
const { readStartup, describeTimeline, describeStartupCpu } = require('../read/startup');
const { flameGraphSvg } = require('../read/flamegraph-svg');
const { relative, checkOf } = require('../../lib/labs');
const { table } = require('../read/table');

// Finer than --cpu-prof's default of 1 ms: a start-up is short.
const INTERVAL_US = 250;

module.exports = {
  name: 'startup',
  summary: 'the start-up: --cpu-prof from the first line until each example route has answered once, and the timeline',
  async run({ lab, file, dir, progress, print }) {
    const examples = checkOf(lab).standardLoad.examples || [checkOf(lab).standardLoad.path];
    const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${INTERVAL_US}`];
    // The timeline comes from a start of its own, without the profiler: its
    // sampling slows the start, and makes the event loop's idle time read
    // low (measured on lab 14's starter: 167 ms of waits with it, 555 ms
    // without).
    const timeStart = (args, label) =>
      withApp({ file, nodeArgs: args, graceMs: 10_000, progress }, async (app) => {
        progress(`${label}: listening ${Math.round(app.listeningAt - app.spawnedAt)} ms after spawn. Asking each example route once, all at once: ${examples.join(', ')}`);
        const answers = await Promise.all(
          examples.map((p) =>
            get(`${app.url}${p}`).then(
              (res) => ({ path: p, status: res.status, at: performance.timeOrigin + performance.now() }),
              (err) => ({ path: p, status: err.message, at: performance.timeOrigin + performance.now() }),
            ),
          ),
        );
        const timeline = await app.startupTimeline();
        progress(args.length ? 'Stopping the app so the profiler writes its file' : 'Stopping the app');
        return { spawnedAt: app.spawnedAt, listeningAt: app.listeningAt, answers, timeline };
      });
    await timeStart(nodeArgs, 'Profiled start');
    progress('Once more without the profiler, for the timeline');
    const timing = await timeStart([], 'Start without the profiler');
    const written = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
    if (written.length === 0) throw new Error('node --cpu-prof wrote no .cpuprofile (did the app exit cleanly?)');
    const profileFile = path.join(dir, written[0]);
    const profile = JSON.parse(fs.readFileSync(profileFile, 'utf8'));
    const startup = readStartup(profile, { appFile: file, timing });
    print(describeTimeline(startup));
    print(describeStartupCpu(startup));
    const reading = readCpuProfile(profile, { appFile: file });
    print(
      `Self time by function (top 10 of ${reading.busySamples} busy samples)\n` +
        table(reading.topSelf.map((f) => [`${f.selfPct.toFixed(1)}%`, f.functionName, f.location]), ['self', 'function', 'where']),
    );
    const svg = path.join(dir, 'flamegraph.svg');
    const appName = relative(file);
    fs.writeFileSync(svg, flameGraphSvg(foldCpuProfile(profile), { title: `Start-up CPU profile: ${appName}`, highlight: (frame) => frame.includes(` ${appName}:`) }));
    fs.writeFileSync(path.join(dir, 'summary.json'), JSON.stringify({ startup, reading }, null, 2));
    return {
      open: profileFile,
      flamegraph: svg,
      howToOpen: `Chrome DevTools → Performance → "Load profile…" shows it on a time line, waits as gaps; a static flame graph is beside it: ${path.basename(svg)}`,
    };
  },
};
