'use strict';
// Reads a Node.js diagnostic report (the JSON that --report-on-fatalerror,
// --report-on-signal or process.report.writeReport() write) and says what a
// post-mortem needs from it: what happened, how full each of V8's heap spaces
// was against the limit, the JavaScript stack (or why there is none), the
// top of the native stack, the process's resource usage, and the
// connections still open. Field names are those of report versions 4 (Node
// 20) and 5 (Node 22 and later); the heap spaces differ by V8 version and
// are read as they come.

const fs = require('node:fs');
const { table } = require('./table');

const MB = 1024 * 1024;

/** Reads a report file; throws one clear sentence when it is not one. */
function readReportFile(file) {
  let report;
  try {
    report = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file} is not a readable diagnostic report (${err.message})`);
  }
  return readReport(report);
}

/** The parts of a report a post-mortem reads, with numbers as numbers. */
function readReport(report) {
  if (!report || typeof report !== 'object' || !report.header) throw new Error('not a Node.js diagnostic report: it has no header');
  const { header = {}, javascriptHeap: heap = {}, javascriptStack: js = {}, resourceUsage: usage = {} } = report;
  const spaces = Object.entries(heap.heapSpaces || {})
    .map(([name, s]) => ({ name, used: Number(s.used) || 0, size: Number(s.memorySize) || 0, available: Number(s.available) || 0 }))
    .filter((s) => s.size > 0 || s.used > 0)
    .sort((a, b) => b.used - a.used);
  const stack = Array.isArray(js.stack) ? js.stack.filter((line) => line && line !== 'Unavailable.') : [];
  // The report's own frames come first (TriggerNodeReport, Node's and V8's
  // out-of-memory handlers): what ran out is below them. Builds without
  // symbols leave V8's frames nameless.
  const frames = (report.nativeStack || []).map((f) => String(f.symbol || '').replace(/\s*\[[^\]]*\]\s*$/, '').trim());
  const handler = frames.findLastIndex((f) => /TriggerNodeReport|OOMErrorHandler|ReportOOMFailure|FatalProcessOutOfMemory|OnFatalError/.test(f));
  const native = frames.slice(handler + 1).filter(Boolean);
  const handles = Array.isArray(report.libuv) ? report.libuv : [];
  const listening = handles.filter((h) => h.type === 'tcp' && !h.remoteEndpoint && h.localEndpoint);
  const ports = new Set(listening.map((h) => h.localEndpoint.port));
  // Connections to a port the app listens on are its clients' requests; the
  // others are the app's own (to a database, or a profiler's).
  const connections = handles.filter((h) => h.type === 'tcp' && h.remoteEndpoint && h.localEndpoint && ports.has(h.localEndpoint.port));
  const outgoing = handles.filter((h) => h.type === 'tcp' && h.remoteEndpoint && !(h.localEndpoint && ports.has(h.localEndpoint.port)));
  // The flag, when the report's command line has it: V8's limit above also counts the young generation.
  const flag = (header.commandLine || []).map((a) => /^--max-old-space-size=(\d+)$/.exec(a)).find(Boolean);
  return {
    event: header.event || '',
    oldSpaceLimitMb: flag ? Number(flag[1]) : null,
    trigger: header.trigger || '',
    node: header.nodejsVersion || '',
    reportVersion: header.reportVersion,
    time: header.dumpEventTime || '',
    commandLine: header.commandLine || [],
    heap: {
      used: Number(heap.usedMemory) || 0,
      limit: Number(heap.memoryLimit) || 0,
      total: Number(heap.totalMemory) || 0,
      external: Number(heap.externalMemory) || 0,
      spaces,
    },
    jsStack: { message: js.message || '', frames: stack },
    nativeStack: native,
    usage: {
      rss: Number(usage.rss) || 0,
      maxRss: Number(usage.maxRss) || 0,
      userCpuSeconds: Number(usage.userCpuSeconds) || 0,
      kernelCpuSeconds: Number(usage.kernelCpuSeconds) || 0,
      cpuPercent: Number(usage.cpuConsumptionPercent) || 0,
      constrainedMemory: Number(usage.constrained_memory) || 0,
      totalMemory: Number(usage.total_memory) || 0,
      pageFaults: usage.pageFaults || null,
    },
    connections: connections.length,
    outgoing: outgoing.length,
    listening: listening.length,
    handles: handles.length,
  };
}

const mb = (bytes) => `${(bytes / MB).toFixed(1)} MB`;

/**
 * What the report says, as the lines a terminal shows.
 * @param {ReturnType<typeof readReport>} r
 * @param {{brief?: boolean, appFile?: string}} [options] brief: the headline and the heap only
 */
function describeCrash(r, { brief = false } = {}) {
  const lines = [];
  lines.push(`The diagnostic report (${r.node}, trigger ${r.trigger || 'unknown'}): "${r.event}"`);
  if (r.heap.limit) {
    const old = r.oldSpaceLimitMb ? ` (of it, --max-old-space-size=${r.oldSpaceLimitMb} for the old generation; the rest is the young generation's)` : '';
    lines.push(`  V8 heap: ${mb(r.heap.used)} used, against a limit of ${mb(r.heap.limit)}${old}; ${mb(r.heap.external)} more outside it, held by JavaScript objects (Buffers and the like)`);
  }
  const top = r.heap.spaces.slice(0, brief ? 3 : r.heap.spaces.length);
  if (brief) {
    if (top.length) lines.push(`  fullest heap spaces: ${top.map((s) => `${s.name} ${mb(s.used)}`).join(', ')}`);
    if (r.connections) lines.push(`  ${r.connections} client connection${r.connections === 1 ? '' : 's'} open when it died`);
    return lines.join('\n');
  }
  lines.push('');
  lines.push('Heap spaces when it died (javascriptHeap.heapSpaces)');
  lines.push(table(top.map((s) => [mb(s.used), mb(s.size), s.name]), ['used', 'reserved', 'space']));
  lines.push('');
  if (r.jsStack.frames.length) {
    lines.push(`JavaScript stack (javascriptStack): ${r.jsStack.message}`);
    for (const frame of r.jsStack.frames.slice(0, 8)) lines.push(`  ${frame}`);
  } else {
    lines.push(`JavaScript stack (javascriptStack): "${r.jsStack.message || 'No stack.'}" Node's out-of-memory handler marks the process as out of memory before it writes this report, and collects no JavaScript stack while it is (Node 20 to 26 alike). The heap spaces above, the near-limit heap snapshot (--tool oom-snapshot) and the last collections say where the memory went.`);
  }
  lines.push('');
  if (r.nativeStack.length) {
    lines.push('Native stack below the out-of-memory handlers, top frames (nativeStack)');
    for (const frame of r.nativeStack.slice(0, 5)) lines.push(`  ${frame.length > 110 ? `${frame.slice(0, 109)}…` : frame}`);
  } else {
    lines.push('Native stack (nativeStack): only the out-of-memory handlers have names in this build of Node.');
  }
  lines.push('');
  lines.push('Resource usage (resourceUsage)');
  const u = r.usage;
  const rows = [
    ['resident memory (rss)', mb(u.rss)],
    ['its peak (maxRss)', mb(u.maxRss)],
    // (Not cpuConsumptionPercent: Node divides the CPU time by the process's
    // age in whole seconds, src/node_report.cc, so a process 1.5 s old reads
    // as if it were 1 s old.)
    ['CPU time', `${u.userCpuSeconds.toFixed(2)} s user, ${u.kernelCpuSeconds.toFixed(2)} s system`],
  ];
  if (u.constrainedMemory && u.constrainedMemory < u.totalMemory) rows.push(['memory limit of its container (constrained_memory)', mb(u.constrainedMemory)]);
  for (const [label, value] of rows) lines.push(`  ${label}: ${value}`);
  lines.push('');
  if (!r.handles) {
    // Node's OOMErrorHandler may write the report without the thread's Environment
    // (src/node_errors.cc), and then the libuv section is empty.
    lines.push('Open handles (libuv): none recorded: Node wrote this report without the event loop at hand, as it does for some out-of-memory errors.');
    return lines.join('\n');
  }
  lines.push(
    `Open handles (libuv): ${r.listening} listening socket${r.listening === 1 ? '' : 's'}, ${r.connections} connection${r.connections === 1 ? '' : 's'} from clients (requests in flight when it died)` +
      `${r.outgoing ? `, ${r.outgoing} of its own to other servers` : ''}, ${r.handles} handles in all`,
  );
  return lines.join('\n');
}

module.exports = { readReport, readReportFile, describeCrash };
