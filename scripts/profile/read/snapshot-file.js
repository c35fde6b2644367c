'use strict';
// Reads a .heapsnapshot file as a stream, without JSON.parse of the whole
// file. A snapshot near a 128 MB heap limit is about 200 MB of JSON: parsed
// at once it becomes a string of that size plus arrays of some twenty
// million numbers as JavaScript values, over a gigabyte at its peak, which
// a laptop with 4 GB to share does not have. Here the file goes through in
// chunks: the numbers of `nodes`, `edges` and `locations` land straight in
// typed arrays (four bytes each), each entry of `strings` is decoded on its
// own, and the rest (`snapshot`, the small metadata object) is parsed as
// JSON. What comes out has the shape parseSnapshot() (heapsnapshot.js)
// reads, so both paths give the same graph.
//
// The format is V8's (src/profiler/heap-snapshot-generator.cc, the
// serializer): one object whose `nodes`, `edges` and `locations` are flat
// arrays of non-negative integers, `strings` an array of strings, and
// whose other members (`trace_function_infos`, `trace_tree`, `samples`)
// this reader skips.

const fs = require('node:fs');

const NUMERIC = new Set(['nodes', 'edges', 'locations']);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

class SnapshotReader {
  constructor() {
    this.depth = 0; // nesting of objects and arrays
    this.key = null; // the top-level member being read
    this.keyBytes = null; // a top-level key being read
    this.expectKey = false;
    this.inString = false;
    this.escaped = false;
    this.stringParts = null; // the raw bytes of a string being kept (quotes included)
    this.capture = null; // the raw bytes of the `snapshot` member
    this.captureFrom = -1;
    this.number = -1; // the digits of a number being read, or -1
    this.meta = null;
    this.arrays = {}; // key → {data: Uint32Array, length}
    this.strings = [];
  }

  /** The typed array a numeric member is read into, sized from the metadata when it came first. */
  target(key) {
    if (!this.arrays[key]) {
      const m = this.meta || {};
      const fields = { nodes: m.meta?.node_fields?.length, edges: m.meta?.edge_fields?.length }[key];
      const count = { nodes: m.node_count, edges: m.edge_count }[key];
      const size = fields && count ? fields * count : 1 << 16;
      this.arrays[key] = { data: new Uint32Array(size), length: 0 };
    }
    return this.arrays[key];
  }

  push(key, value) {
    const a = this.target(key);
    if (a.length === a.data.length) {
      const grown = new Uint32Array(Math.max(1 << 16, a.data.length * 2));
      grown.set(a.data);
      a.data = grown;
    }
    a.data[a.length++] = value;
  }

  write(chunk) {
    const capturing = () => this.capture !== null;
    if (capturing()) this.captureFrom = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) {
          this.inString = false;
          if (this.stringParts) {
            this.stringParts.push(chunk.subarray(this.stringStart, i + 1));
            this.endString();
          }
        }
        continue;
      }
      if (this.number >= 0) {
        if (c >= 0x30 && c <= 0x39) {
          this.number = this.number * 10 + (c - 0x30);
          continue;
        }
        if (NUMERIC.has(this.key) && this.depth === 2) this.push(this.key, this.number);
        this.number = -1;
      }
      switch (c) {
        case QUOTE:
          this.inString = true;
          // Kept: a top-level key, and each entry of `strings`.
          if ((this.depth === 1 && this.expectKey) || (this.key === 'strings' && this.depth === 2)) {
            this.stringParts = [];
            this.stringStart = i;
          }
          break;
        case 0x7b: // {
        case 0x5b: // [
          this.depth++;
          if (this.depth === 1) this.expectKey = true;
          if (this.depth === 2 && this.key === 'snapshot' && c === 0x7b) {
            this.capture = [];
            this.captureFrom = i;
          }
          break;
        case 0x7d: // }
        case 0x5d: // ]
          this.depth--;
          if (this.depth === 1 && this.capture !== null) {
            this.capture.push(chunk.subarray(this.captureFrom, i + 1));
            this.meta = JSON.parse(Buffer.concat(this.capture).toString('utf8'));
            this.capture = null;
          }
          if (this.depth === 1) this.key = null;
          break;
        case 0x2c: // ,
          if (this.depth === 1) this.expectKey = true;
          break;
        case 0x3a: // :
          if (this.depth === 1) this.expectKey = false;
          break;
        default:
          if (c >= 0x30 && c <= 0x39) this.number = c - 0x30;
          else if (c === 0x2d || c === 0x2e || c === 0x65 || c === 0x45) {
            if (NUMERIC.has(this.key) && this.depth === 2) throw new Error(`the heap snapshot's ${this.key} hold a number that is not a whole number ≥ 0`);
          }
      }
    }
    // A string or the metadata that goes on in the next chunk: keep what is here.
    if (this.inString && this.stringParts) {
      this.stringParts.push(chunk.subarray(this.stringStart));
      this.stringStart = 0;
    }
    if (capturing()) this.capture.push(chunk.subarray(this.captureFrom));
  }

  endString() {
    const text = JSON.parse(Buffer.concat(this.stringParts).toString('utf8'));
    this.stringParts = null;
    if (this.depth === 1) this.key = text;
    else this.strings.push(text);
  }

  /** What parseSnapshot() reads: the metadata, the numeric arrays (typed), the strings. */
  end() {
    if (this.depth !== 0 || this.inString) throw new Error('the heap snapshot ends part-way through (was it still being written?)');
    if (!this.meta) throw new Error('not a heap snapshot: it has no "snapshot" metadata');
    const array = (key) => (this.arrays[key] ? this.arrays[key].data.subarray(0, this.arrays[key].length) : new Uint32Array(0));
    return { snapshot: this.meta, nodes: array('nodes'), edges: array('edges'), locations: array('locations'), strings: this.strings };
  }
}

/**
 * Reads a heap snapshot file in chunks.
 * @param {string} file
 * @returns {Promise<{snapshot: object, nodes: Uint32Array, edges: Uint32Array, locations: Uint32Array, strings: string[]}>}
 */
async function readSnapshotFile(file) {
  const reader = new SnapshotReader();
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 4 * 1024 * 1024 })) reader.write(chunk);
  return reader.end();
}

module.exports = { readSnapshotFile, SnapshotReader };
