'use strict';
// `--cpu-prof`: V8's sampling CPU profiler, written as a .cpuprofile that
// Chrome DevTools opens (Performance panel, or "Load profile" in the
// JavaScript Profiler). The workbook also reads it for you.

const fs = require('node:fs');
const path = require('node:path');
const { profileRun } = require('../session');
const { readCpuProfile, describeHotspot, describeOutside, foldCpuProfile, profileFrom } = require('../read/cpuprofile');
const { flameGraphSvg } = require('../read/flamegraph-svg');
const { relative, checkOf } = require('../../lib/labs');
const { table } = require('../read/table');

const pct = (share) => `${share.toFixed(1)}%`;

module.exports = {
  name: 'cpu',
  summary: 'V8 CPU profile (--cpu-prof), read for you; opens in Chrome DevTools',
  async run({ lab, file, dir, duration, progress, print }) {
    // What this lab's walkthrough reads beyond the tables every lab gets
    // (its check's `cpuProfile`): the profile from the load on, the idle
    // share, the callers of a native function.
    const reads = checkOf(lab).cpuProfile || {};
    const load = await profileRun({ lab, file, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`], duration, progress });
    const written = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
    if (written.length === 0) throw new Error('node --cpu-prof wrote no .cpuprofile (did the app exit cleanly?)');
    const profileFile = path.join(dir, written[0]);
    const whole = JSON.parse(fs.readFileSync(profileFile, 'utf8'));
    const window = reads.from === 'load' ? profileFrom(whole, load && load.startedUs) : { profile: whole, trimmed: false };
    const profile = window.profile;
    const reading = readCpuProfile(profile, { appFile: file, callersOf: reads.callersOf || [] });
    const svg = path.join(dir, 'flamegraph.svg');
    const appName = relative(file);
    fs.writeFileSync(svg, flameGraphSvg(foldCpuProfile(profile), { title: `CPU profile: ${appName}`, highlight: (frame) => frame.includes(` ${appName}:`) }));
    if (reads.from === 'load') {
      print(
        window.trimmed
          ? `Read from the start of the load: ${reading.totalSamples} samples in ${window.seconds.toFixed(1)} s (the ${window.dropped} taken while the app started are left out; the file holds them all)`
          : 'Read whole: the profile\'s clock did not match this machine\'s, so the app\'s start-up is in it too',
      );
    }
    print(describeHotspot(reading.hotspot));
    print(
      `Self time by function (top 10 of ${reading.busySamples} busy samples)\n` +
        table(reading.topSelf.map((f) => [pct(f.selfPct), f.functionName, f.location]), ['self', 'function', 'where']),
    );
    print(
      'Self time by origin\n' +
        table(reading.byOrigin.slice(0, 8).map((o) => [pct(o.selfPct), o.origin]), ['self', 'origin']),
    );
    if (reads.idle) {
      print(
        `Idle: ${pct((100 * reading.idleSamples) / reading.totalSamples)} of the ${reading.totalSamples} samples (${reading.idleSamples}): the main thread had nothing to do, ` +
          'it was waiting (for the network, a timer, another process); a CPU profile shows work, not what the work waits for',
      );
    }
    for (const c of reading.callers) {
      if (!c.samples) continue;
      print(
        `Beneath \`${c.of}\` (${c.samples} samples), by the first caller outside Node.js and V8\n` +
          table(c.rows.slice(0, 5).map((r) => [pct(r.sharePct), r.caller, r.origin, r.location]), ['share', 'caller', 'origin', 'where']),
      );
    }
    const outside = describeOutside(reading);
    if (outside) print(outside);
    fs.writeFileSync(path.join(dir, 'summary.json'), JSON.stringify(reading, null, 2));
    return {
      open: profileFile,
      flamegraph: svg,
      howToOpen: `Chrome DevTools → Performance → "Load profile…" (or drag the file in); a static flame graph is beside it: ${path.basename(svg)}`,
    };
  },
};
