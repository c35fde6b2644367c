'use strict';
// Lists processes still running a given file: what "no process left behind"
// is checked against after a command that started apps and profilers.

const { execFileSync } = require('node:child_process');

function processesRunning(fragment) {
  if (process.platform === 'win32') return [];
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.includes(fragment) && !line.includes('ps -eo'))
    .map((line) => ({ pid: Number(line.split(/\s+/)[0]), args: line.replace(/^\d+\s+/, '') }))
    .filter((p) => p.pid !== process.pid);
}

module.exports = { processesRunning };
