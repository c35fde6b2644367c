'use strict';
// `--prof` then `--prof-process`: V8's own sampling profiler and tick
// processor, the tool of the Node.js "Profiling Node.js Applications" guide.

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { track } = require('../../harness/children');
const { profileRun } = require('../session');
const { section, topOfBottomUp, profHotspot } = require('../read/prof-report');
const { describeHotspot } = require('../read/cpuprofile');

module.exports = {
  name: 'prof',
  summary: "V8's tick profiler (node --prof) and its report (node --prof-process)",
  async run({ lab, file, dir, duration, progress, print }) {
    await profileRun({ lab, file, nodeArgs: ['--prof'], cwd: dir, duration, progress });
    const log = fs.readdirSync(dir).find((f) => /^isolate-.*\.log$/.test(f));
    if (!log) throw new Error('node --prof wrote no isolate-*.log file');
    progress(`Processing ${log} with node --prof-process`);
    const processed = path.join(dir, 'processed.txt');
    await tickProcess(path.join(dir, log), processed);
    const report = fs.readFileSync(processed, 'utf8');
    print(section(report, 'Summary'));
    print(topOfBottomUp(report, 14));
    print(describeHotspot(profHotspot(report, file), { unit: 'ticks' }));
    return { open: processed };
  },
};

function tickProcess(log, outFile) {
  return new Promise((resolve, reject) => {
    const out = fs.createWriteStream(outFile);
    const child = track(spawn(process.execPath, ['--prof-process', log], { cwd: path.dirname(log), stdio: ['ignore', 'pipe', 'pipe'] }));
    child.stdout.pipe(out);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    // 'close', not 'exit': the report is complete only once stdout has closed.
    child.on('close', (code) => {
      out.end(() => (code === 0 ? resolve() : reject(new Error(`node --prof-process failed (exit ${code}): ${stderr.trim().split('\n').pop()}`))));
    });
  });
}

