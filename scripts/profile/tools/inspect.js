'use strict';
// Where is a process that stopped answering? This tool does what you would
// do by hand with `node inspect -p <pid>` or DevTools, on the app under its
// standard load, the moment /health stops answering:
//   1. sends SIGUSR2, which --report-on-signal turns into a diagnostic
//      report (not on Windows), and says whether one came: its handler is
//      JavaScript (lib/internal/process/report.js), so a thread stuck in
//      a loop never runs it;
//   2. opens the inspector in the running process (process._debugProcess:
//      SIGUSR1 on Linux and macOS, a remote thread on Windows; Node asks V8
//      to interrupt the running JavaScript to start it, src/inspector_agent.cc),
//      connects to it, and pauses it: the call stack (`bt`);
//   3. sets a breakpoint where the app's own frame was paused and lets it
//      run into it twice: its variables at each pass, side by side (a loop
//      that does not move reads the same twice). A breakpoint, because a
//      pause lands in optimized code, where V8 may not have a variable's
//      value to show; at a breakpoint the function runs unoptimized;
//   4. at the first pass, asks the process to write its diagnostic report
//      (process.report.writeReport(), evaluated in the paused frame): a
//      report with the stuck thread's JavaScript stack and its open sockets;
//   5. removes the breakpoint and records its CPU for a second through the
//      same connection (the inspector's Profiler: --cpu-prof writes its
//      profile at exit, which a process you must kill never reaches).
// The app starts with --inspect-port=0 (the inspector, once opened, takes
// any free port, so this never collides with your own debugging on 9229)
// and with --report-on-signal. On a process that never stops answering, it
// says so and stops there.

const fs = require('node:fs');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { withApp, applyStandardLoad } = require('../session');
const { startRouteProbe } = require('../../harness/route-probe');
const { median } = require('../../harness/stats');
const { InspectorClient, inspectorUrl } = require('../inspector-client');
const { framesOf, frameLine, localsOf, ownScopes, compareLocals, displayUrl } = require('../read/paused-frames');
const { readReportFile } = require('../read/diagnostic-report');
const { readCpuProfile } = require('../read/cpuprofile');
const { table } = require('../read/table');
const { ROOT } = require('../../lib/labs');

// /health unanswered this long, and this many times its usual time, is a process that stopped answering.
const STUCK_AFTER_MS = 1000;
const STUCK_TIMES_USUAL = 50;
// How long a breakpoint in a loop that goes round may take to be hit.
const BREAKPOINT_WAIT_MS = 5000;
const PROFILE_MS = 1000;

/** Resolves when /health has gone unanswered for long, or with null when `done` settles first. */
async function whenStuck(url, done) {
  const probe = startRouteProbe(url, { name: '/health', path: '/health', intervalMs: 100, keep: 0 });
  let finished = false;
  done.then(
    () => (finished = true),
    () => (finished = true),
  );
  const started = Date.now();
  try {
    while (!finished) {
      await sleep(100);
      const now = probe.snapshot();
      const usual = median(now.latest) || 1;
      if (now.oldestUnansweredMs >= Math.max(STUCK_AFTER_MS, STUCK_TIMES_USUAL * usual)) {
        return { atMs: Date.now() - started - now.oldestUnansweredMs, waitedMs: now.oldestUnansweredMs, usualMs: usual };
      }
    }
    return null;
  } finally {
    await probe.stop({ maxWaitMs: 0 });
  }
}

/** SIGUSR2 with --report-on-signal: does a report come while the process is stuck? */
async function signalReport(app, dir, platform) {
  if (platform === 'win32') {
    return 'SIGUSR2 and --report-on-signal do not exist on Windows; the report below is written through the inspector, as it is on every system.';
  }
  const before = new Set(fs.readdirSync(dir));
  process.kill(app.pid, 'SIGUSR2');
  await sleep(1000);
  const written = fs.readdirSync(dir).filter((f) => !before.has(f) && /^report\..*\.json$/.test(f));
  return written.length
    ? `SIGUSR2 (--report-on-signal): a report came within 1 s (${written[0]}): the main thread turned its event loop after all.`
    : 'SIGUSR2 (--report-on-signal): no report within 1 s. Node handles that signal in JavaScript (process.on(signal), lib/internal/process/report.js), on the event loop the stuck thread never returns to; the report comes, if ever, when the loop ends, with an empty JavaScript stack.';
}

/** Opens the inspector in the running app and connects to it. */
async function openInspector(app) {
  process._debugProcess(app.pid);
  const deadline = Date.now() + 10_000;
  let url = null;
  while (!(url = inspectorUrl(app.output.text(200))) && Date.now() < deadline) await sleep(50);
  if (!url) throw new Error(`the app did not open its inspector within 10 s of process._debugProcess(${app.pid})`);
  const client = await InspectorClient.connect(url);
  return { client, url };
}

/** Pauses the process; resolves with its frames, top first. */
async function pause(client, scripts) {
  const paused = client.next('Debugger.paused');
  await client.send('Debugger.pause');
  const { callFrames } = await paused;
  return framesOf(callFrames, scripts);
}

/** The variables of a frame's own scopes (its blocks and its function), innermost first. */
async function localsOfFrame(client, frame) {
  const locals = [];
  for (const scope of ownScopes(frame)) {
    locals.push(...localsOf(await client.send('Runtime.getProperties', { objectId: scope.object.objectId, ownProperties: true, generatePreview: true })));
  }
  return locals;
}

/** Resumes and waits for the next pause (a breakpoint's); null when none comes within `ms`. */
async function resumeUntilPaused(client, scripts, ms) {
  const paused = client.next('Debugger.paused').catch(() => null);
  await client.send('Debugger.resume');
  const params = await Promise.race([paused, sleep(ms).then(() => null)]);
  return params ? framesOf(params.callFrames, scripts) : null;
}

/**
 * The top of a stack, as bt prints it: down to the app's own frame and the
 * one that called it, then how many more there are (the framework's, Node's).
 */
function stackLines(frames, mine) {
  const shown = Math.min(frames.length, Math.max(3, frames.indexOf(mine) + 2));
  const lines = frames.slice(0, shown).map((f, i) => `  ${frameLine(f, i, ROOT)}`);
  if (frames.length > shown) lines.push(`  … ${frames.length - shown} frames more, down to where Node handed the request over`);
  return lines.join('\n');
}

/** The first frame that runs the app's own file, else one in its folder, else the top one. */
function appFrame(frames, appFile) {
  const file = path.resolve(appFile);
  const dir = path.dirname(file);
  return frames.find((f) => f.file === file) || frames.find((f) => f.file && f.file.startsWith(dir + path.sep)) || frames[0];
}

module.exports = {
  name: 'inspect',
  summary: 'pause the app where it is stuck, once /health stops answering: call stack, local variables, a report and a CPU profile, through the inspector opened in the running process',
  async run({ lab, file, dir, duration, progress, print, platform = process.platform }) {
    return withApp({ file, nodeArgs: ['--inspect-port=0', '--report-on-signal', `--report-directory=${dir}`], graceMs: 0, progress }, async (app) => {
      progress(`The app is pid ${app.pid}; watching /health every 100 ms while the standard load runs`);
      let seen = false; // once the tool has looked, the load has nothing more to show
      const loading = applyStandardLoad({ lab, url: app.url, duration, progress, stopEarly: () => seen });
      loading.catch(() => {});
      const stuck = await whenStuck(app.url, loading);
      if (!stuck) {
        await loading;
        print(`The app answered /health all through ${duration} s of the standard load: nothing was stuck, so there is nothing to pause. (On the starter, it stops answering a few seconds in.)`);
        return {};
      }
      const lines = [`/health stopped answering ${(stuck.atMs / 1000).toFixed(1)} s into the load (no answer for ${(stuck.waitedMs / 1000).toFixed(1)} s; it usually takes ${stuck.usualMs.toFixed(1)} ms).`];
      lines.push(await signalReport(app, dir, platform));
      print(lines.join('\n'));

      progress(`Opening the inspector in pid ${app.pid} (process._debugProcess: ${platform === 'win32' ? 'a remote thread on Windows' : 'SIGUSR1'})`);
      const { client, url } = await openInspector(app);
      const scripts = new Map();
      client.on('Debugger.scriptParsed', ({ scriptId, url: scriptUrl }) => scripts.set(scriptId, scriptUrl));
      try {
        await client.send('Debugger.enable');
        progress('Pausing it');
        const frames = await pause(client, scripts);
        const mine = appFrame(frames, file);
        const where = `${displayUrl(mine.url, ROOT)}:${mine.line}`;
        print(
          `The inspector opened on ${url.replace(/\/[\w-]+$/, '/…')}; paused at once, the main thread was here (\`bt\` in node inspect):\n` +
            stackLines(frames, mine),
        );

        // A breakpoint where the app's frame was: the loop runs into it again if it is going round.
        const { breakpointId } = await client.send('Debugger.setBreakpoint', { location: { scriptId: mine.scriptId, lineNumber: mine.line - 1, columnNumber: mine.column - 1 } });
        progress(`A breakpoint at ${where}, in ${mine.name}; resuming until it is hit`);
        const first = await resumeUntilPaused(client, scripts, BREAKPOINT_WAIT_MS);
        if (!first) {
          await client.send('Debugger.removeBreakpoint', { breakpointId });
          print(`Resumed with a breakpoint at ${where}: not hit within ${BREAKPOINT_WAIT_MS / 1000} s, so ${mine.name} was not going round there.`);
        } else {
          const hit = first[0];
          const before = await localsOfFrame(client, hit);
          // The report, written from inside the paused frame: its JavaScript stack is the stuck thread's.
          // (With --report-directory, a report's file name is relative to that folder.)
          const reportName = 'report-while-paused.json';
          const reportFile = path.join(dir, reportName);
          await client.send('Debugger.evaluateOnCallFrame', { callFrameId: hit.callFrameId, expression: `process.report.writeReport(${JSON.stringify(reportName)})`, silent: true });
          const second = await resumeUntilPaused(client, scripts, BREAKPOINT_WAIT_MS);
          const after = second ? await localsOfFrame(client, second[0]) : [];
          await client.send('Debugger.removeBreakpoint', { breakpointId });
          const compared = compareLocals(before, after);
          const moved = compared.filter((c) => !c.same);
          print(
            `A breakpoint at ${where} (\`setBreakpoint\` in node inspect, a click on the line in DevTools), and the process resumed: ` +
              `${second ? 'hit, and hit again' : 'hit once'}. ${mine.name}'s variables at the two passes (DevTools' Scope pane):\n` +
              table(compared.map((c) => [c.name, c.first, c.second, c.same ? 'same' : 'changed']), ['name', 'first pass', 'second pass', '']) +
              (moved.length === 0
                ? '\nEvery variable reads the same on the next pass: the loop is going round without moving.'
                : `\n${compared.length - moved.length} of ${compared.length} read the same on the next pass; ${moved.map((c) => c.name).join(', ')} changed.`),
          );
          if (fs.existsSync(reportFile)) {
            const report = readReportFile(reportFile);
            const stack = report.jsStack.frames.filter((f) => !/node:internal\/process\/report|^at eval /.test(f)).slice(0, 3);
            print(
              'The diagnostic report, written at the first pass (`exec process.report.writeReport()` in node inspect):\n' +
                `  javascriptStack:\n${stack.map((f) => `    ${f.split(ROOT + path.sep).join('')}`).join('\n')}\n` +
                `  resourceUsage: ${report.usage.userCpuSeconds.toFixed(1)} s of CPU (user) since it started, ${report.usage.cpuPercent.toFixed(0)}% of one core on average\n` +
                `  libuv: ${report.connections} client connection${report.connections === 1 ? '' : 's'} open`,
            );
          }
        }
        await client.send('Debugger.resume').catch(() => {});
        await client.send('Debugger.disable');

        progress(`Recording its CPU for ${PROFILE_MS / 1000} s through the inspector's Profiler`);
        await client.send('Profiler.enable');
        await client.send('Profiler.start');
        await sleep(PROFILE_MS);
        const { profile } = await client.send('Profiler.stop');
        const profileFile = path.join(dir, 'while-stuck.cpuprofile');
        fs.writeFileSync(profileFile, JSON.stringify(profile));
        const reading = readCpuProfile(profile, { appFile: file });
        print(
          `${PROFILE_MS / 1000} s of its CPU, recorded through the inspector's Profiler while it was stuck (self time by function, ${reading.busySamples} samples):\n` +
            table(reading.topSelf.slice(0, 6).map((f) => [`${f.selfPct.toFixed(1)}%`, f.functionName, f.location]), ['self', 'function', 'where']),
        );
        return {
          open: profileFile,
          howToOpen: 'Chrome DevTools → Performance → "Load profile…"; report-while-paused.json beside it is the report written at the breakpoint',
        };
      } finally {
        client.close();
        seen = true;
        await loading.catch(() => {});
      }
    });
  },
};
