'use strict';
// Lab 03's check against fixtures: other real fixes must pass, "fixes" that
// drop part of the work, or keep the readings where a reading of the main
// thread's heap would not see them, must fail. The lab's own suite is
// labs/03-leaking-set/check/verdicts.test.js.

const path = require('node:path');
const { findLab, checkOf } = require('../../scripts/lib/labs');
const { describeFixtures } = require('../../test/helpers/lab-verdicts');
const { derivedApp } = require('../../test/helpers/derived-app');

const lab = findLab('03');
// Every reading the check records: the warm-up, the blocks, and one lone
// reading before the load and one after it.
const { warmup, block, blocks } = checkOf(lab).settings;
const RECORDED = warmup + blocks * block + 2;
const fixture = (name) => path.join(__dirname, 'fixtures', name);

describe('lab 03 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      ['a bounded ring buffer', fixture('ring-buffer.js')],
      ['streaming readings to a file (the guide\'s fix)', fixture('file-stream.js')],
    ],
    cheats: [
      [
        'every reading kept as a Buffer of its JSON (memory outside the heap)',
        derivedApp('03-buffers', lab.solutionApp, [
          ['  total += 1;', '  kept.push(Buffer.from(JSON.stringify(entry)));\n  total += 1;'],
          ['let total = 0;', 'const kept = [];\nlet total = 0;'],
        ]),
        (result) => expect(result.gates[0].pass).toBe(false),
      ],
      [
        'every reading sent to a worker thread that keeps it',
        derivedApp('03-worker', lab.solutionApp, [
          ['  total += 1;', '  keeper.postMessage(entry);\n  total += 1;'],
          [
            'let total = 0;',
            "const { Worker } = require('node:worker_threads');\nconst keeper = new Worker(\"const kept = []; require('node:worker_threads').parentPort.on('message', (m) => kept.push(m));\", { eval: true });\nlet total = 0;",
          ],
        ]),
        (result) => expect(result.gates[0].pass).toBe(false),
      ],
      [
        'a capped Set whose size is reported as the total',
        fixture('capped-set.js'),
        (result) => {
          expect(result.gates[0].pass).toBe(true);
          expect(result.responses.find((r) => !r.pass).actual).toMatch(new RegExp(`total 1000, but ${RECORDED} readings were recorded`));
        },
      ],
    ],
  });
});
