'use strict';
// `--cpu-prof`: V8's sampling CPU profiler, written as a .cpuprofile that
// Chrome DevTools opens (Performance panel, or "Load profile" in the
// JavaScript Profiler). The workbook also reads it for you.

const fs = require('node:fs');
const path = require('node:path');
const { profileRun } = require('../session');
const { readCpuProfile, describeHotspot, describeOutside, foldCpuProfile } = require('../read/cpuprofile');
const { flameGraphSvg } = require('../read/flamegraph-svg');
const { relative } = require('../../lib/labs');
const { table } = require('../read/table');

module.exports = {
  name: 'cpu',
  summary: 'V8 CPU profile (--cpu-prof), read for you; opens in Chrome DevTools',
  async run({ lab, file, dir, duration, progress, print }) {
    await profileRun({ lab, file, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`], duration, progress });
    const written = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
    if (written.length === 0) throw new Error('node --cpu-prof wrote no .cpuprofile (did the app exit cleanly?)');
    const profileFile = path.join(dir, written[0]);
    const profile = JSON.parse(fs.readFileSync(profileFile, 'utf8'));
    const reading = readCpuProfile(profile, { appFile: file });
    const svg = path.join(dir, 'flamegraph.svg');
    const appName = relative(file);
    fs.writeFileSync(svg, flameGraphSvg(foldCpuProfile(profile), { title: `CPU profile: ${appName}`, highlight: (frame) => frame.includes(` ${appName}:`) }));
    print(describeHotspot(reading.hotspot));
    print(
      `Self time by function (top 10 of ${reading.busySamples} busy samples)\n` +
        table(reading.topSelf.map((f) => [`${f.selfPct.toFixed(1)}%`, f.functionName, f.location]), ['self', 'function', 'where']),
    );
    print(
      'Self time by origin\n' +
        table(reading.byOrigin.slice(0, 8).map((o) => [`${o.selfPct.toFixed(1)}%`, o.origin]), ['self', 'origin']),
    );
    print(describeOutside(reading));
    fs.writeFileSync(path.join(dir, 'summary.json'), JSON.stringify(reading, null, 2));
    return {
      open: profileFile,
      flamegraph: svg,
      howToOpen: `Chrome DevTools → Performance → "Load profile…" (or drag the file in); a static flame graph is beside it: ${path.basename(svg)}`,
    };
  },
};
