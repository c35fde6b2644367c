'use strict';
// Warm-up for lab 03, after the Node.js guide "Tracing garbage collection":
// the leak without a server. It takes a million readings of the machine's
// memory and keeps every one in a Set. Run it with the GC trace on:
//   node --trace-gc labs/03-leaking-set/warm-up.js
// and then with a small heap, to watch it run out:
//   node --trace-gc --max-old-space-size=50 labs/03-leaking-set/warm-up.js
const os = require('node:os');

const readings = new Set();

function takeReading() {
  readings.add({
    timestamp: Date.now(),
    freeMemory: os.freemem(),
    totalMemory: os.totalmem(),
    uptime: os.uptime(),
  });
}

for (let left = 1_000_000; left > 0; left--) {
  takeReading();
  if (left % 100_000 === 0) process.stdout.write(`${left} readings to take\n`);
}
console.log(`Kept ${readings.size} readings.`);
