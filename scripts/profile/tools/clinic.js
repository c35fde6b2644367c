'use strict';
// Clinic.js 13's tools, driven through their programmatic API rather than
// the `clinic` command (which, when not on a terminal, exits silently unless
// NO_INSIGHT=1, and on a terminal first asks about usage statistics). Each
// tool starts the app with its own preloads; we add the probe, apply the
// lab's load once the app listens, stop it cleanly, and render the report.

const fs = require('node:fs');
const path = require('node:path');
const { track } = require('../../harness/children');
const { loadOnPort } = require('../session');
const { relative } = require('../../lib/labs');
const { withAppEnvironment } = require('../child-env');
const { doctorVerdict, describeVerdict } = require('../read/doctor-verdict');
const { requirePatches } = require('../patches');

/** Resolves the report's HTML path once the tool has collected and rendered. */
async function runClinicTool(Tool, { lab, file, dir, duration, progress }) {
  const tool = new Tool({ detectPort: true, dest: dir });
  const stopFile = path.join(dir, '.stop');
  const load = loadOnPort({ lab, duration, progress, stopMessage: 'Stopping the app so Clinic.js can write its data' });
  const dataPath = await withAppEnvironment(
    file,
    () =>
      new Promise((resolve, reject) => {
        tool.on('port', (port, proc, done) => {
          if (proc) track(proc);
          load.onPort(port, () => {
            // The probe in the app closes its servers when this file
            // appears, and the process ends by itself: Clinic.js flushes
            // on that exit. (The heap profiler stops through its own IPC.)
            fs.writeFileSync(stopFile, '');
            done();
          });
        });
        tool.collect([process.execPath, file], (err, collected) => (err ? reject(err) : resolve(collected)));
      }),
    { stopFile, lab, progress },
  );
  await load.finished();
  progress('Analysing the data and writing the HTML report');
  const html = `${dataPath}.html`;
  await new Promise((resolve, reject) => tool.visualize(dataPath, html, (err) => (err ? reject(err) : resolve())));
  return { dataPath, html };
}

function clinicTool({ name, module: moduleName, summary, howToOpen, after }) {
  return {
    name,
    summary,
    async run(context) {
      requirePatches();
      context.progress(`Starting ${relative(context.file)} under Clinic.js ${name === 'clinic-doctor' ? 'Doctor' : name}`);
      const { dataPath, html } = await runClinicTool(require(moduleName), context);
      if (after) await after(dataPath, context, html);
      return { open: html, howToOpen };
    },
  };
}

const doctor = clinicTool({
  name: 'clinic-doctor',
  module: '@clinic/doctor',
  summary: 'Clinic.js Doctor: what kind of problem is this? (HTML report + verdict)',
  howToOpen: 'open it in a browser: the verdict is on top, the four graphs below show CPU, memory, event-loop delay and handles',
  async after(dataPath, { print }) {
    const analysis = await doctorVerdict(dataPath);
    const verdict = describeVerdict(analysis);
    const mark = { performance: '✗ flagged', none: '✓ fine', data: '? no data' };
    print(`${verdict.headline}\n${verdict.checks.map((c) => `  ${(mark[c.outcome] || c.outcome).padEnd(10)} ${c.label}`).join('\n')}`);
  },
});

module.exports = {
  'clinic-doctor': doctor,
  'clinic-flame': clinicTool({
    name: 'clinic-flame',
    module: '@clinic/flame',
    summary: 'Clinic.js Flame: a flame graph with Clinic\'s own "hottest frames" navigation',
    howToOpen: 'open it in a browser: it starts on the hottest frame; the arrows step to the next hottest',
  }),
  heapprofiler: clinicTool({
    name: 'heapprofiler',
    module: '@clinic/heap-profiler',
    summary: 'Clinic.js HeapProfiler: which functions allocated the memory still alive at the end (no retainers: use --tool heap)',
    // V8's sampling heap profiler drops a sample when its object is
    // collected (Clinic starts it without the flags that keep them): the
    // boxes are memory still alive at the end, not all that was allocated.
    howToOpen: 'open it in a browser: the widest boxes allocated the most of the memory still alive at the end',
    async after(dataPath, { file, print }) {
      const { readHeapProfile } = require('../read/heap-profile');
      const { table } = require('../read/table');
      const { totalBytes, functions } = readHeapProfile(JSON.parse(fs.readFileSync(dataPath, 'utf8')), { appFile: file });
      const size = (bytes) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${(bytes / 1024).toFixed(0)} KB`);
      print(
        `Memory still alive at the end, by the function that allocated it (sampled: ${size(totalBytes)} in all)\n` +
          table(functions.map((f) => [`${(100 * f.share).toFixed(0)}%`, f.functionName, f.location]), ['share', 'function', 'where']),
      );
    },
  }),
  bubbleprof: clinicTool({
    name: 'bubbleprof',
    module: '@clinic/bubbleprof',
    summary: 'Clinic.js Bubbleprof: where asynchronous operations wait (and the bubbles as a tree)',
    howToOpen: 'open it in a browser: bubbles are groups of async operations, lines the waits between them',
    async after(dataPath, { print }, html) {
      // Loaded here: the visualiser's data model is needed by this tool only.
      print(require('../read/bubbleprof-tree').describeBubbles(html));
    },
  }),
};
