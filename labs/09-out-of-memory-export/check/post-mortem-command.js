'use strict';
// Runs the walkthrough's post-mortem commands exactly as written, as a
// learner would from the root of the workbook (the docs tests hand this
// program the command block's text in WORKBOOK_DOCS_COMMAND, and run it from
// the root): each line but the last to its end, then the last one, the app,
// which a second process (this one, as the learner's second terminal) loads
// with the lab's standard load until it dies. It passes when the app died of
// running out of memory and left in reports/ what the walkthrough then reads:
// a complete diagnostic report of an OOMError and a complete heap snapshot,
// named as the app said it wrote them. Whatever the commands created is
// removed afterwards (reports/ itself when it was not there before, and a
// core file the crash may have left in the working folder).
//
// Each line is split into words as a shell would (double or single quotes
// group a word) and run with the node running this program, without a shell:
// the same words on every system, and a process this program can end.

const fs = require('node:fs');
const path = require('node:path');
const http = require('node:http');
const { spawn } = require('node:child_process');
const { standardLoad } = require('./index');

const DEADLINE_MS = 75_000; // the app must have died, and written its files, by then
const LISTEN_MS = 15_000;

/** A command line's words, honouring double and single quotes. */
function words(line) {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** The lines of a command block, without prompts, comments and blank lines. */
function commandLines(text) {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/^\$\s+/, '').trim())
    .filter((line) => line && !line.startsWith('#'));
}

/** Starts one command line; only `node …` commands are expected here. */
function start(line, options) {
  const [program, ...args] = words(line);
  if (program !== 'node') throw new Error(`"${line}" is not a node command: this program runs only those`);
  return spawn(process.execPath, args, { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'], ...options });
}

function exited(child) {
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** The standard load, from `clients` connections, until `stop()` says so. */
async function load(url, stop) {
  const agent = new http.Agent({ keepAlive: true });
  let answered = 0;
  const client = async () => {
    while (!stop()) {
      await new Promise((resolve) => {
        const req = http.get(url + standardLoad.path, { agent }, (res) => {
          res.resume();
          res.on('end', () => (answered++, resolve()));
          res.on('error', resolve);
          res.on('close', resolve);
        });
        req.on('error', () => setTimeout(resolve, 50));
      });
    }
  };
  await Promise.all(Array.from({ length: standardLoad.connections }, client));
  agent.destroy();
  return answered;
}

async function main() {
  const text = process.env.WORKBOOK_DOCS_COMMAND;
  if (!text) throw new Error('WORKBOOK_DOCS_COMMAND is empty: the docs tests give this program the command block to run');
  const lines = commandLines(text);
  const root = process.cwd();
  const reports = path.join(root, 'reports');
  const hadReports = fs.existsSync(reports);
  const before = new Set(fs.readdirSync(root));
  const beforeReports = new Set(hadReports ? fs.readdirSync(reports) : []);
  let app = null;
  try {
    for (const line of lines.slice(0, -1)) {
      const child = start(line);
      let output = '';
      child.stderr.on('data', (d) => (output += d));
      const { code, signal } = await exited(child);
      if (code !== 0) throw new Error(`"${line}" ended with ${code ?? signal}: ${output.trim()}`);
    }
    const last = lines.at(-1);
    app = start(last);
    let output = '';
    app.stdout.on('data', (d) => (output += d));
    app.stderr.on('data', (d) => (output += d));
    const end = exited(app);
    let gone = null;
    end.then((e) => (gone = e));
    const t0 = Date.now();
    let url = null;
    while (!url && !gone && Date.now() - t0 < LISTEN_MS) {
      await new Promise((r) => setTimeout(r, 50));
      url = /Listening on (http:\/\/[^\s]+)/.exec(output)?.[1] ?? null;
    }
    if (!url) throw new Error(`the app never said "Listening on …"${gone ? ` (it ended with ${gone.code ?? gone.signal})` : ''}:\n${output.trim().slice(-800)}`);
    const answered = await load(url, () => gone !== null || Date.now() - t0 > DEADLINE_MS);
    if (!gone) throw new Error(`the app was still running after ${DEADLINE_MS / 1000} s of the standard load (${answered} answered)`);

    const problems = [];
    if (!/FATAL ERROR: .*JavaScript heap out of memory/.test(output)) problems.push('it printed no "FATAL ERROR: … JavaScript heap out of memory"');
    const snapshot = /Wrote snapshot to (\S+\.heapsnapshot)/.exec(output)?.[1];
    if (!snapshot) problems.push('it printed no "Wrote snapshot to …"');
    else if (!fs.existsSync(path.resolve(root, snapshot))) problems.push(`it said "Wrote snapshot to ${snapshot}", and there is no such file`);
    else {
      const file = path.resolve(root, snapshot);
      const size = fs.statSync(file).size;
      const fd = fs.openSync(file, 'r');
      const tail = Buffer.alloc(Math.min(64, size));
      fs.readSync(fd, tail, 0, tail.length, size - tail.length);
      fs.closeSync(fd);
      if (path.dirname(file) !== reports) problems.push(`the snapshot went to ${path.dirname(file)}, not to reports/`);
      if (!/\]\s*\}\s*$/.test(tail.toString('latin1'))) problems.push(`${snapshot} is cut short (${size} bytes)`);
    }
    const reportName = /Writing Node\.js report to file: (\S+\.json)/.exec(output)?.[1];
    const reportFile = reportName && path.join(reports, path.basename(reportName));
    if (!reportName) problems.push('it printed no "Writing Node.js report to file: …"');
    else if (!fs.existsSync(reportFile)) problems.push(`there is no ${path.basename(reportName)} in reports/`);
    else {
      const report = JSON.parse(fs.readFileSync(reportFile, 'utf8'));
      if (report.header?.trigger !== 'OOMError') problems.push(`the report's trigger is ${report.header?.trigger}, not OOMError`);
    }
    if (problems.length) throw new Error(`${problems.join('; ')}. Its output ended:\n${output.trim().slice(-1500)}`);
    console.log(`The app died after ${((Date.now() - t0) / 1000).toFixed(1)} s (${gone.signal || `exit code ${gone.code}`}, ${answered} exports answered) and left ${path.basename(reportName)} and ${path.basename(snapshot)} in reports/.`);
  } finally {
    if (app && app.exitCode === null && app.signalCode === null) app.kill('SIGKILL');
    // What the commands created goes; what was there before stays.
    if (fs.existsSync(reports)) {
      if (!hadReports) fs.rmSync(reports, { recursive: true, force: true });
      else for (const f of fs.readdirSync(reports)) if (!beforeReports.has(f)) fs.rmSync(path.join(reports, f), { force: true });
    }
    for (const f of fs.readdirSync(root)) if (!before.has(f) && /^core(\.\d+)?$/.test(f)) fs.rmSync(path.join(root, f), { force: true });
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}

module.exports = { words, commandLines };
