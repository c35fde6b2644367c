'use strict';
// `--prof` then `--prof-process`: V8's own sampling profiler and tick
// processor, the tool of the Node.js "Profiling Node.js Applications" guide.

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { track } = require('../../harness/children');
const { profileRun } = require('../session');
const { relative } = require('../../lib/labs');

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
    return { artifacts: [processed, path.join(dir, log)], open: processed, report };
  },
};

function tickProcess(log, outFile) {
  return new Promise((resolve, reject) => {
    const out = fs.createWriteStream(outFile);
    const child = track(spawn(process.execPath, ['--prof-process', log], { cwd: path.dirname(log), stdio: ['ignore', 'pipe', 'pipe'] }));
    child.stdout.pipe(out);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => {
      out.end(() => (code === 0 ? resolve() : reject(new Error(`node --prof-process failed (exit ${code}): ${stderr.trim().split('\n').pop()}`))));
    });
  });
}

/** One bracketed section of the tick report, e.g. " [Summary]:". */
function section(report, name) {
  const lines = report.split('\n');
  const start = lines.findIndex((l) => l.trim() === `[${name}]:`);
  if (start < 0) return '';
  let end = start + 1;
  while (end < lines.length && !/^ \[.+\]:/.test(lines[end])) end++;
  return lines.slice(start, end).join('\n').trimEnd();
}

/** The header and first `rows` rows of the bottom-up (heavy) profile. */
function topOfBottomUp(report, rows) {
  const body = section(report, 'Bottom up (heavy) profile').split('\n');
  const header = body.findIndex((l) => /ticks\s+parent\s+name/.test(l));
  if (header < 0) return body.join('\n');
  return [body[0], body[header], ...body.slice(header + 1, header + 1 + rows)].join('\n');
}

module.exports.section = section;
module.exports.topOfBottomUp = topOfBottomUp;
