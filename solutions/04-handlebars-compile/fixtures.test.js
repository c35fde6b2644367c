'use strict';
// Lab 04's check against fixtures: other real fixes must pass, "fixes" that
// drop part of the work must fail. The lab's own suite, with its gates and
// measured margins, is test/04-handlebars-compile.test.js.

const { findLab } = require('../../scripts/lib/labs');
const { describeFixtures } = require('../../test/helpers/lab-verdicts');
const { derivedApp } = require('../../test/helpers/derived-app');

const lab = findLab('04');

describe('lab 04 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      [
        // handlebars.compile() is lazy: without the reference's warm-up
        // render, the first request pays the whole compile. Still a correct
        // fix of the per-request compile; the check shows that first request
        // as information only.
        'compiling at module level without rendering once before listening',
        derivedApp('04-compile-module-level', lab.solutionApp, [["renderReport({ ...figures, user: 'start-up' });\n", '']]),
      ],
      [
        'compiling lazily on the first request, then reusing it',
        derivedApp('04-compile-lazily', lab.solutionApp, [
          ["const renderReport = handlebars.compile(fs.readFileSync(TEMPLATE, 'utf8'));", 'let renderReport;'],
          ["renderReport({ ...figures, user: 'start-up' });\n", ''],
          ['  res.type(\'html\').send(renderReport({ ...figures, user }));', "  renderReport ??= handlebars.compile(fs.readFileSync(TEMPLATE, 'utf8'));\n  res.type('html').send(renderReport({ ...figures, user }));"],
        ]),
      ],
    ],
    cheats: [
      [
        'caching the first page rendered and serving it to everyone',
        derivedApp('04-cache-first-page', lab.solutionApp, [
          ['const app = express();', 'const app = express();\nlet cachedPage;'],
          ['  res.type(\'html\').send(renderReport({ ...figures, user }));', "  cachedPage ??= renderReport({ ...figures, user });\n  res.type('html').send(cachedPage);"],
        ]),
        (result) => {
          expect(result.gates.every((g) => g.pass)).toBe(true);
          expect(result.responses.filter((r) => !r.pass).map((r) => r.name)).toEqual(
            expect.arrayContaining(['GET /report?user=bob', 'a user name is HTML-escaped']),
          );
        },
      ],
    ],
  });
});
