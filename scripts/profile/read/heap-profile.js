'use strict';
// Reads a V8 sampling heap profile (what Clinic.js HeapProfiler collects, and
// Node's --heap-prof writes as .heapprofile): a tree of allocation stacks, each
// node with the bytes sampled in its own function (selfSize).
//
// What the profile holds: V8 samples about one allocation per interval (32 KB
// in Clinic's HeapProfiler, 512 KB by default for Node's --heap-prof) and
// keeps a sample only while the object it stands for lives. Started without
// V8's "include objects collected by major/minor GC" flags, as both tools
// start it, it drops a sample when its object is collected: at the end the
// profile is the memory still alive, by the stack that allocated it, not
// everything allocated during the run.

const path = require('node:path');
const { originOf, toPath } = require('./origin');
const { relative } = require('../../lib/labs');

function where(frame) {
  const file = toPath(frame.url);
  if (!file) return '(native)';
  const shown = file.startsWith('node:') || !path.isAbsolute(file) ? file : relative(file);
  return `${shown}:${frame.lineNumber + 1}`;
}

/**
 * The live sampled memory by allocating function: each function's own
 * (self) bytes, summed over every stack it appears at the top of.
 * @param {{head: object}} profile the parsed profile
 * @param {{appFile?: string, top?: number}} [options]
 * @returns {{totalBytes:number, functions:Array<{functionName:string, location:string, origin:string, bytes:number, share:number}>}}
 */
function readHeapProfile(profile, { appFile, top = 8 } = {}) {
  const functions = new Map();
  let totalBytes = 0;
  const visit = (node) => {
    const { callFrame } = node;
    if (node.selfSize > 0 && callFrame.functionName !== '(root)') {
      const key = `${callFrame.functionName}|${callFrame.url}|${callFrame.lineNumber}`;
      const entry = functions.get(key) || {
        functionName: callFrame.functionName || '(anonymous)',
        location: where(callFrame),
        origin: originOf(callFrame.url, appFile).label,
        bytes: 0,
      };
      entry.bytes += node.selfSize;
      functions.set(key, entry);
    }
    totalBytes += node.selfSize;
    for (const child of node.children || []) visit(child);
  };
  visit(profile.head);
  const ranked = [...functions.values()]
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, top)
    .map((f) => ({ ...f, share: totalBytes ? f.bytes / totalBytes : 0 }));
  return { totalBytes, functions: ranked };
}

module.exports = { readHeapProfile };
