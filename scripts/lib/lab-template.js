'use strict';
// What `npx workbook dev new NN slug` writes: a lab's own files, with the
// standard walkthrough sections and a check skeleton. The scaffold runs (the
// app listens and answers, the check measures something), but its TODOs make
// `dev check` fail until an author has written the lab.

const fs = require('node:fs');
const path = require('node:path');
const { SECTIONS } = require('./walkthrough');
const { pinOf } = require('./solution-code');

/** Every lab's verdict test, byte for byte (dev check compares). */
const VERDICTS_TEST = `'use strict';
// This lab's self-check: the reference passes, the shipped starter fails,
// and your own app.js is judged (test/helpers/lab-suite.js). Written by
// \`npx workbook dev new\`, the same in every lab: \`npm test -- <lab id>\` runs it.
require('../../../test/helpers/lab-suite').describeLab(__dirname);
`;

/** The sections of labs/<slug>/check/trainers.md, in order. */
const TRAINER_SECTIONS = ['Demo', 'Pitfalls'];

const LISTEN = `const host = process.env.HOST || '127.0.0.1';
const port = Number(process.env.PORT ?? 3000);
const server = app.listen(port, host, () => {
  console.log(\`Listening on http://\${host}:\${server.address().port}\`);
});
`;

function starter() {
  return `'use strict';
// TODO: the deliberately broken app the learner edits. Keep it small and
// realistic; the walkthrough explains what is wrong with it.
const express = require('express');

const app = express();

app.get('/work', (req, res) => {
  res.json({ ok: true });
});

app.get('/health', (req, res) => res.send('ok'));

${LISTEN}`;
}

function walkthrough(id, title, fullSlug, minutes) {
  // The solution's /work route: lines 7-9 of solution() below.
  const route = solution().split('\n').slice(6, 9);
  const body = {
    'The symptom': 'TODO: what a user of this service sees, in one paragraph.',
    Hints: [
      '<details>',
      `<summary>The hints, from where to look to nearly the answer (try without them first; <code>npx workbook hint ${id}</code> shows one at a time)</summary>`,
      '',
      '1. TODO: the first rung: where to look.\n2. TODO: the second rung: what the profile says.\n3. TODO: the third rung: which change, without its code.',
      '',
      '</details>',
    ].join('\n'),
    Fix: [
      '<details>',
      '<summary>The fix, in words (try the hints first)</summary>',
      '',
      'TODO: the fix, explained in words. Its code stays out of this file (learners read it raw):',
      'a solution-code directive names the solution\'s lines, and the site folds them in',
      '(scripts/lib/solution-code.js; `npx workbook dev pin` pins them again after a change).',
      '',
      `<!-- solution-code: The reference fix\nsolutions/${fullSlug}/app.js 7-9 #${pinOf(route)}\n-->`,
      '',
      '</details>',
    ].join('\n'),
    Verify: `\`\`\`sh\nnpx workbook check ${id}\n\`\`\``,
  };
  const intro = ['TODO: the story (who runs the app, what breaks), and what the learner will do.', '', `- **Time:** about ${minutes} minutes`, ''];
  return [`# Lab ${id} · ${title}`, '', ...intro, ...SECTIONS.flatMap((s) => [`## ${s}`, '', body[s] || 'TODO', ''])].join('\n');
}

function check(id) {
  return `'use strict';
// Lab ${id}'s check. TODO: what it measures and why that figure means the same
// on any machine (a ratio against the reference run interleaved, a cost
// calibrated on the machine, or a machine-independent quantity). The measured
// margins are in check/margins.json (npm run bench -- --runs 10 --write).

const { get } = require('../../../scripts/harness/http-client');
const { median } = require('../../../scripts/harness/stats');
const { responseCase } = require('../../../scripts/checks/gates');
const { defineCheck } = require('../../../scripts/checks/define-check');

const SETTINGS = { samples: 5 };

const standardLoad = {
  path: '/work',
  connections: 10,
  duration: 10,
  describe: 'GET /work, 10 connections',
  examples: ['/work', '/health'],
};

async function measure(ctx) {
  ctx.progress('Starting the app');
  const app = await ctx.start(ctx.candidate);
  const responses = [responseCase('GET /work', await get(\`\${app.url}/work\`).catch((e) => e), { status: 200 })];
  const times = [];
  for (let i = 0; i < SETTINGS.samples; i++) times.push((await get(\`\${app.url}/work\`)).ms);
  return {
    // TODO: a machine-relative figure for each gate.
    figures: { 'work-latency': { value: median(times), scale: \`median of \${SETTINGS.samples} requests\` } },
    responses,
    info: [],
    noise: [],
    series: {},
  };
}

module.exports = defineCheck(
  {
    gates: {
      'work-latency': {
        label: 'TODO: what is measured, in plain words',
        op: '<',
        threshold: 1000,
        unit: 'ms',
        pass: 'TODO: what a pass says about the app.',
        fail: 'TODO: what a fail says, and where to look.',
      },
    },
    starterFails: ['work-latency'],
    settings: SETTINGS,
    standardLoad,
    advice: 'TODO: Profile it with \`npx workbook profile ${id} --tool cpu\`',
    measure,
    explain: {
      kind: 'machine-independent',
      noise: 'TODO: when the check says "too noisy, rerun".',
    },
    captures: [],
    tools: [],
    charts: [{ kind: 'gate-bars', title: 'TODO', gates: [{ id: 'work-latency', label: 'TODO' }] }],
  },
  __filename,
);
`;
}

function solution() {
  return `'use strict';
// TODO: the reference fix of lab's app.js.
const express = require('express');

const app = express();

app.get('/work', (req, res) => {
  res.json({ ok: true });
});

app.get('/health', (req, res) => res.send('ok'));

${LISTEN}`;
}

function fixturesTest(id) {
  return `'use strict';
// Lab ${id}'s check against fixtures: other real fixes must pass, "fixes" that
// drop part of the work must fail. TODO: add both kinds in fixtures/.

const path = require('node:path');
const { findLab } = require('../../scripts/lib/labs');
const { describeFixtures } = require('../../test/helpers/lab-verdicts');

const lab = findLab(path.basename(__dirname));

describe(\`lab \${lab.id} · fixtures\`, () => {
  describeFixtures(lab, { otherFixes: [], cheats: [] });
});
`;
}

const TRAINERS = `## Demo

TODO: one moment worth showing on the projector before learners try it.

## Pitfalls

- TODO: what learners trip over, and what to tell them.
`;

const MARGINS = {
  about: "Measured by `npm run bench -- --runs 10 [--hog] --write`: per gate and side, the median figure divided by its threshold (ratio) and the worst run's margin (positive: inside the threshold by that factor; negative: past it). One row per Node version and number of CPU hogs, each with the machine it was measured on.",
  benches: [],
};

/**
 * Writes a new lab's own files under `root` and appends its metadata entry.
 * @returns {string[]} the files written, relative to root
 */
function scaffoldLab(root, { number, slug, title, minutes = 40, teaches = 'TODO: what the lab teaches' }) {
  const fullSlug = `${String(number).padStart(2, '0')}-${slug}`;
  const id = fullSlug.slice(0, 2);
  const metadataFile = path.join(root, 'labs', 'labs.json');
  const entries = JSON.parse(fs.readFileSync(metadataFile, 'utf8'));
  if (entries.some((e) => e.slug.slice(0, 2) === id)) throw new Error(`lab ${id} already exists (${entries.find((e) => e.slug.slice(0, 2) === id).slug}).`);
  const files = {
    [`labs/${fullSlug}/app.js`]: starter(),
    [`labs/${fullSlug}/README.md`]: walkthrough(id, title, fullSlug, minutes),
    [`labs/${fullSlug}/check/index.js`]: check(id),
    [`labs/${fullSlug}/check/verdicts.test.js`]: VERDICTS_TEST,
    [`labs/${fullSlug}/check/margins.json`]: `${JSON.stringify(MARGINS, null, 2)}\n`,
    [`labs/${fullSlug}/check/trainers.md`]: TRAINERS,
    [`solutions/${fullSlug}/app.js`]: solution(),
    [`solutions/${fullSlug}/fixtures.test.js`]: fixturesTest(id),
  };
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, ...rel.split('/'));
    if (fs.existsSync(file)) throw new Error(`${rel} already exists.`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
  entries.push({ slug: fullSlug, title, minutes, teaches });
  entries.sort((a, b) => a.slug.localeCompare(b.slug));
  fs.writeFileSync(metadataFile, `${JSON.stringify(entries, null, 2)}\n`);
  return ['labs/labs.json', ...Object.keys(files)];
}

module.exports = { VERDICTS_TEST, TRAINER_SECTIONS, scaffoldLab };
