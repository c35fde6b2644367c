'use strict';
// Lab 09's check against fixtures: other real fixes must pass (a line per
// write, drain by hand, a Readable over the cursor, pipeline straight from
// the generator, an object-mode Transform, pieces of 1 MB, cursor batches
// of 20,000 orders: bounded, if larger than the reference's); "fixes" that
// stream without waiting for the client, that still gather the export
// before streaming it, stream only long ranges and build short ones, spool
// it to disk after building it, cache exports, keep a copy of the orders,
// cut the export short, leave the cursor open when the client goes away
// (waiting for a 'drain' that never comes, or returning without closing
// it), break the contract (no format is CSV; the download's file name), or
// get the process a bigger heap instead (a cluster worker with a larger
// --max-old-space-size, a near-limit heap snapshot that raises the limit)
// must fail. Each is the shipped starter or the reference solution with a
// few lines changed (derivedApp: a change to their base that breaks a
// patch fails loudly). The lab's own suite is
// labs/09-out-of-memory-export/check/verdicts.test.js.

const { findLab } = require('../../scripts/lib/labs');
const { materializeShipped } = require('../../scripts/lib/shipped');
const { describeFixtures } = require('../../test/helpers/lab-verdicts');
const { derivedApp } = require('../../test/helpers/derived-app');

const lab = findLab('09');
const wrongResponses = (result) => result.responses.filter((r) => !r.pass).map((r) => `${r.name}: ${r.actual}`).join('\n');
const failedGates = (result) => result.gates.filter((g) => !g.pass).map((g) => g.id);

const starter = () => {
  const shipped = materializeShipped(lab);
  if (shipped.error) throw new Error(shipped.error);
  return shipped.app;
};
// A derived app lives in .workbook/derived/: it loads the lab's driver from the lab.
const DRIVER = ["require('./orders-db')", "require('../../labs/09-out-of-memory-export/orders-db')"];
const fromStarter = (name, patches) => derivedApp(`09-${name}`, starter(), [DRIVER, ...patches]);
const fromSolution = (name, patches) => derivedApp(`09-${name}`, lab.solutionApp, patches);

// The lines of the solution and of the starter the fixtures change.
const SOLUTION_SOURCE = "Readable.from(format === 'json' ? jsonPieces(cursor) : csvPieces(cursor))";
const SOLUTION_PIPELINE = `    await pipeline(${SOLUTION_SOURCE}, res);`;
const SOLUTION_ROUTE = "app.get('/orders/export', async (req, res) => {";
const SOLUTION_REQUIRES = "const { pipeline } = require('node:stream/promises');";
const SOLUTION_CURSOR = '  const cursor = orders.find({ from, to });';
const STARTER_TOP = "'use strict';\n";
const STARTER_BUILD = '  const rows = await orders.find({ from, to }).toArray();';
const STARTER_SEND = `  if (format === 'json') return res.json(rows);
  res.type('csv').send(CSV_HEADER + rows.map(csvLine).join(''));`;

// Ignores write()'s return value: what the kernel does not take piles up in the app.
const WITHOUT_DRAIN = `    for await (const piece of format === 'json' ? jsonPieces(cursor) : csvPieces(cursor)) res.write(piece);
    res.end();`;

describe('lab 09 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      [
        'one order per write, from an async generator',
        fromSolution('line-by-line', [
          [
            SOLUTION_ROUTE,
            `async function* lineByLine(cursor, format) {
  yield format === 'json' ? '[' : CSV_HEADER;
  let first = true;
  for await (const order of cursor) {
    yield format === 'json' ? \`\${first ? '' : ','}\${JSON.stringify(order)}\` : csvLine(order);
    first = false;
  }
  if (format === 'json') yield ']';
}

${SOLUTION_ROUTE}`,
          ],
          [SOLUTION_SOURCE, 'Readable.from(lineByLine(cursor, format))'],
        ]),
      ],
      [
        "write() and 'drain' by hand, without pipeline()",
        fromSolution('drain-by-hand', [
          [
            SOLUTION_ROUTE,
            `/** Resolves when the response has room again; rejects if the client goes away first. */
function drained(res) {
  return new Promise((resolve, reject) => {
    const ok = () => (res.off('close', gone), resolve());
    const gone = () => (res.off('drain', ok), reject(Object.assign(new Error('the client went away'), { code: 'ERR_STREAM_PREMATURE_CLOSE' })));
    res.once('drain', ok);
    res.once('close', gone);
  });
}

${SOLUTION_ROUTE}`,
          ],
          [
            SOLUTION_PIPELINE,
            `    for await (const piece of format === 'json' ? jsonPieces(cursor) : csvPieces(cursor)) {
      if (!res.write(piece)) await drained(res);
    }
    res.end();`,
          ],
        ]),
      ],
      [
        "a Readable over the cursor's batches, as database drivers offer",
        fromSolution('cursor-readable', [
          [
            SOLUTION_ROUTE,
            `/** The export as a stream: each _read() fetches one batch of orders, when the stream has room for it. */
class ExportStream extends Readable {
  constructor(cursor, format) {
    super();
    Object.assign(this, { cursor, format, opened: false, first: true });
  }

  async _read() {
    try {
      let text = this.opened ? '' : this.format === 'json' ? '[' : CSV_HEADER;
      this.opened = true;
      const batch = await this.cursor.nextBatch();
      for (const order of batch) {
        text += this.format === 'json' ? \`\${this.first ? '' : ','}\${JSON.stringify(order)}\` : csvLine(order);
        this.first = false;
      }
      if (batch.length) return this.push(text);
      this.push(this.format === 'json' ? \`\${text}]\` : text);
      this.push(null);
    } catch (err) {
      this.destroy(err);
    }
  }

  _destroy(err, done) {
    this.cursor.close();
    done(err);
  }
}

${SOLUTION_ROUTE}`,
          ],
          [SOLUTION_SOURCE, 'new ExportStream(cursor, format)'],
        ]),
      ],
      // Bounded, if larger than the reference's 64 thousand characters: the
      // same few pieces held at every size of export.
      ['pieces of about a million characters', fromSolution('one-mb-pieces', [['const PIECE = 64 * 1024;', 'const PIECE = 1024 * 1024;']])],
      // 20,000 orders (about 4 MB of objects) held per export at every size:
      // the most the check accepts is what its smallest JSON export holds.
      ['cursor batches of 20,000 orders', fromSolution('batches-of-20000', [[SOLUTION_CURSOR, '  const cursor = orders.find({ from, to }, { batchSize: 20_000 });']])],
      ['pipeline() straight from the async generator, without Readable.from', fromSolution('pipeline-generator', [[SOLUTION_SOURCE, "format === 'json' ? jsonPieces(cursor) : csvPieces(cursor)"]])],
      [
        'the cursor as an object stream, through a Transform that writes each order',
        fromSolution('object-transform', [
          [SOLUTION_REQUIRES, `${SOLUTION_REQUIRES}\nconst { Transform } = require('node:stream');`],
          [
            SOLUTION_ROUTE,
            `/** Orders in, text out: the export's opening, one order per chunk, and its end. */
function toText(format) {
  let first = true;
  return new Transform({
    writableObjectMode: true,
    transform(order, _, done) {
      const opening = first ? (format === 'json' ? '[' : CSV_HEADER) : format === 'json' ? ',' : '';
      first = false;
      done(null, opening + (format === 'json' ? JSON.stringify(order) : csvLine(order)));
    },
    flush(done) {
      done(null, first ? (format === 'json' ? '[]' : CSV_HEADER) : format === 'json' ? ']' : '');
    },
  });
}

${SOLUTION_ROUTE}`,
          ],
          [SOLUTION_PIPELINE, '    await pipeline(Readable.from(cursor), toText(format), res);'],
        ]),
      ],
    ],
    cheats: [
      [
        'ranges over 70 days streamed, shorter ones built in memory as before',
        fromSolution('stream-only-long-ranges', [
          [
            SOLUTION_PIPELINE,
            `    const days = ((to ? Date.parse(to) : Date.now()) - Date.parse(from)) / 86_400_000;
    if (days <= 70) {
      const rows = await cursor.toArray();
      if (format === 'json') return res.json(rows);
      return res.type('csv').send(CSV_HEADER + rows.map(csvLine).join(''));
    }
${SOLUTION_PIPELINE}`,
          ],
        ]),
        (result) => expect(failedGates(result)).toEqual(['memory-growth']),
      ],
      [
        "write() and 'drain' by hand, not watching 'close': an abandoned export waits for ever, its cursor open",
        fromSolution('drain-without-close', [
          [SOLUTION_REQUIRES, `${SOLUTION_REQUIRES}\nconst { once } = require('node:events');`],
          [
            SOLUTION_PIPELINE,
            `    for await (const piece of format === 'json' ? jsonPieces(cursor) : csvPieces(cursor)) {
      if (!res.write(piece)) await once(res, 'drain');
    }
    res.end();`,
          ],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/after the first 10 were abandoned/),
      ],
      [
        "batches from the cursor by hand, returning when the client has gone without closing the cursor",
        fromSolution('return-without-close', [
          [SOLUTION_REQUIRES, `${SOLUTION_REQUIRES}\nconst { once } = require('node:events');`],
          [
            SOLUTION_PIPELINE,
            `    res.write(format === 'json' ? '[' : CSV_HEADER);
    let first = true;
    for (let batch = await cursor.nextBatch(); batch.length; batch = await cursor.nextBatch()) {
      let text = '';
      for (const order of batch) {
        text += format === 'json' ? \`\${first ? '' : ','}\${JSON.stringify(order)}\` : csvLine(order);
        first = false;
      }
      if (!res.write(text)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
      if (res.destroyed) return;
    }
    res.end(format === 'json' ? ']' : '');`,
          ],
        ]),
        (result) => expect(wrongResponses(result)).toMatch(/after the first 10 were abandoned/),
      ],
      [
        'a format required (no format is CSV, says the contract)',
        fromSolution('format-required', [["const { from, to, format = 'csv' } = query;", 'const { from, to, format } = query;']]),
        (result) => expect(wrongResponses(result)).toMatch(/no format: CSV/),
      ],
      [
        'the download without its file name (no Content-Disposition)',
        fromSolution('no-file-name', [["  res.attachment(`orders-${from}-${to ?? 'now'}.${format}`);\n", '']]),
        (result) => expect(wrongResponses(result)).toMatch(/Content-Disposition/),
      ],
      [
        "streaming that never waits for 'drain'",
        fromSolution('no-backpressure', [[SOLUTION_PIPELINE, WITHOUT_DRAIN]]),
        (result) => expect(failedGates(result)).toEqual(['memory-growth']),
      ],
      [
        "the CSV export streamed without waiting for 'drain' (the JSON one waits)",
        fromSolution('csv-no-backpressure', [
          [
            SOLUTION_PIPELINE,
            `    if (format === 'json') await pipeline(${SOLUTION_SOURCE}, res);
    else {
      for await (const piece of csvPieces(cursor)) res.write(piece);
      res.end();
    }`,
          ],
        ]),
        (result) => expect(failedGates(result)).toEqual(['memory-growth']),
      ],
      [
        'every order fetched first (toArray), then streamed with backpressure',
        fromSolution('fetch-all-then-stream', [[SOLUTION_PIPELINE, `    const all = await cursor.toArray();\n    await pipeline(Readable.from(format === 'json' ? jsonPieces(all) : csvPieces(all)), res);`]]),
        (result) => expect(failedGates(result)).toEqual(['memory-growth']),
      ],
      [
        'the whole export built as one string, then piped',
        fromStarter('one-string-piped', [
          [STARTER_TOP, `${STARTER_TOP}const { Readable, pipeline } = require('node:stream');\n`],
          [STARTER_SEND, "  const text = format === 'json' ? JSON.stringify(rows) : CSV_HEADER + rows.map(csvLine).join('');\n  res.type(format);\n  pipeline(Readable.from([text]), res, () => {});"],
        ]),
        (result) => expect(failedGates(result)).toEqual(['memory-growth']),
      ],
      [
        'the export built in memory, written to a temporary file, then streamed from the file',
        fromStarter('spool-to-disk', [
          [STARTER_TOP, `${STARTER_TOP}const fs = require('node:fs');\nconst os = require('node:os');\nconst path = require('node:path');\nconst { pipeline } = require('node:stream/promises');\n`],
          [
            STARTER_SEND,
            `  const file = path.join(os.tmpdir(), \`export-\${process.pid}-\${Date.now()}-\${Math.random()}.\${format}\`);
  await fs.promises.writeFile(file, format === 'json' ? JSON.stringify(rows) : CSV_HEADER + rows.map(csvLine).join(''));
  rows.length = 0;
  res.type(format);
  try {
    await pipeline(fs.createReadStream(file), res);
  } finally {
    fs.promises.rm(file, { force: true });
  }`,
          ],
        ]),
        // While its clients read nothing it holds little (each export waits on
        // disk), but every export is built whole first: the year's orders,
        // downloaded ten at once when the check abandons them, do not fit.
        (result) => expect(result.crash && result.crash.message).toMatch(/ran out of memory/),
      ],
      [
        'a cache of finished exports, by query, filled while streaming',
        fromSolution('export-cache', [
          [
            SOLUTION_PIPELINE,
            `    const key = JSON.stringify({ from, to, format });
    if (exportCache.has(key)) return res.end(exportCache.get(key));
    const kept = [];
    const source = ${SOLUTION_SOURCE};
    source.on('data', (piece) => kept.push(piece));
    await pipeline(source, res);
    exportCache.set(key, kept.join(''));`,
          ],
          ['const app = express();', 'const app = express();\nconst exportCache = new Map();'],
        ]),
        // Caught when the memory is back at rest, or by the crash the lab is
        // about when the cached exports pass the heap limit.
        (result) => expect(`${failedGates(result)}\n${wrongResponses(result)}\n${result.crash ? result.crash.message : ''}`).toMatch(/memory-growth|memory goes back down|ran out of memory/),
      ],
      [
        'the starter in a cluster worker given --max-old-space-size=4096',
        fromStarter('bigger-heap-worker', [
          [
            STARTER_TOP,
            `${STARTER_TOP}const cluster = require('node:cluster');
if (cluster.isPrimary) {
  cluster.setupPrimary({ execArgv: [...process.execArgv.filter((a) => !a.startsWith('--max-old-space-size')), '--max-old-space-size=4096'] });
  cluster.fork();
  return;
}
`,
          ],
        ]),
        // Its memory is counted in the worker as well: the census reaches every Node process.
        (result) => expect(`${failedGates(result)}\n${wrongResponses(result)}`).toMatch(/memory-growth|served by the app's own process|other Node\.js process/),
      ],
      [
        'the starter asking for a heap snapshot near the limit, which raises the limit',
        fromStarter('snapshot-raises-limit', [[STARTER_TOP, `${STARTER_TOP}require('node:v8').setHeapSnapshotNearHeapLimit(100);\n`]]),
        (result) => expect(failedGates(result)).toEqual(['memory-growth']),
      ],
      [
        "a copy of every order's text, made before listening and kept up to date, sliced per export",
        fromSolution('copy-of-the-orders', [
          [
            SOLUTION_ROUTE,
            `// Every order, as CSV and as JSON, once: exports are then slices of it.
const copy = { placedAt: [], csv: [], json: [] };
function keep(order) {
  copy.placedAt.push(Date.parse(order.placedAt));
  copy.csv.push(csvLine(order));
  copy.json.push(JSON.stringify(order));
}
const ready = (async () => {
  for await (const order of orders.find()) keep(order);
})();

async function* fromCopy(format, from, to) {
  const lo = Date.parse(from);
  const hi = to ? Date.parse(to) : Infinity;
  let piece = format === 'json' ? '[' : CSV_HEADER;
  let first = true;
  for (let i = 0; i < copy.placedAt.length; i++) {
    if (copy.placedAt[i] < lo || copy.placedAt[i] >= hi) continue;
    piece += format === 'json' ? \`\${first ? '' : ','}\${copy.json[i]}\` : copy.csv[i];
    first = false;
    if (piece.length >= PIECE) {
      yield piece;
      piece = '';
    }
  }
  yield format === 'json' ? \`\${piece}]\` : piece;
}

${SOLUTION_ROUTE}`,
          ],
          [SOLUTION_SOURCE, 'Readable.from(fromCopy(format, from, to))'],
          [
            '  res.status(201).json(orders.insert({ customerId, customerName, email, street, postcode, city, country, items, totalCents, currency }));',
            '  const stored = orders.insert({ customerId, customerName, email, street, postcode, city, country, items, totalCents, currency });\n  keep(stored);\n  res.status(201).json(stored);',
          ],
          ['const server = app.listen(PORT, HOST, (err) => {', 'let server;\nready.then(() => (server = app.listen(PORT, HOST, (err) => {'],
          ['  console.log(`Listening on http://${HOST}:${port}`);\n});', '  console.log(`Listening on http://${HOST}:${port}`);\n})));'],
        ]),
        // Caught at rest, or, when the copy and the first exports together
        // fill the heap, by the crash the lab is about (or by a main thread
        // so busy collecting that it cannot even report its memory).
        (result) => expect(`${wrongResponses(result)}\n${result.crash ? result.crash.message : ''}`).toMatch(/no copy of the orders at rest|ran out of memory|did not report its memory/),
      ],
      [
        'exports cut at 10,000 orders',
        fromSolution('cut-short', [["  const cursor = orders.find({ from, to });", "  const cursor = orders.find({ from, to });\n  const all = cursor.nextBatch.bind(cursor);\n  let sent = 0;\n  cursor.nextBatch = async () => (sent >= 10_000 ? [] : all().then((b) => ((sent += b.length), b)));"]]),
        (result) => expect(wrongResponses(result)).toMatch(/large exports, downloaded by slow clients/),
      ],
    ],
  });
});

// The check's arithmetic, on inputs chosen by hand (no app started).
describe('lab 09 · arithmetic of the check', () => {
  const { exportPlan, growthFigure, diagnose } = require('../../labs/09-out-of-memory-export/check/staircase');
  const { attachmentName } = require('../../labs/09-out-of-memory-export/check/downloads');
  const { words, commandLines } = require('../../labs/09-out-of-memory-export/check/post-mortem-command');
  const check = require('../../labs/09-out-of-memory-export/check');
  const MB = 1024 * 1024;
  const fixed = () => 0.5;

  test("the exports are larger than what the machine's sockets take, and fit in 2025", () => {
    const linux = exportPlan(3.69 * MB, check.settings, fixed).steps;
    expect(linux.map((s) => [s.format, s.days])).toEqual([['json', 68], ['json', 136], ['csv', 150], ['csv', null]]);
    expect(exportPlan(3.69 * MB, check.settings, fixed).warmUp).toMatchObject({ format: 'csv', days: 150 });
    const roomy = exportPlan(6 * MB, check.settings, fixed).steps;
    for (const s of roomy) expect(s.estimate).toBeGreaterThan(6 * MB + check.settings.spareMb * MB - 100_000);
    for (const s of [...linux, ...roomy].filter((x) => x.to)) expect(s.to <= '2026-01-01').toBe(true);
    expect(exportPlan(20 * MB, check.settings, fixed).error).toMatch(/more than the exports of 2025 leave room for/);
  });

  const step = (format, mbOfExport, heldMb) => ({ format, bytes: mbOfExport * MB, held: heldMb * MB, days: 1, to: 'x', from: 'y' });
  test('memory held that does not change with the size passes; growing, or shrinking past a cut-off, fails', () => {
    const streams = [step('json', 5.6, 0.49), step('json', 11.2, 0.5), step('csv', 6.8, 0.51), step('csv', 13.7, 0.5)];
    expect(growthFigure(streams).value).toBeLessThan(0.01);
    const batches = [step('json', 5.6, 4.28), step('json', 11.2, 4.58), step('csv', 6.8, 4.59), step('csv', 13.7, 4.58)];
    expect(growthFigure(batches).value).toBeLessThan(check.threshold('memory-growth') / 2.5);
    const builds = [step('json', 5.6, 5.4), step('json', 11.2, 11.2)];
    expect(growthFigure(builds).value).toBeGreaterThan(2.5 * check.threshold('memory-growth'));
    expect(diagnose(builds)).toMatch(/MB more held for each MB more of export/);
    const cutOff = [step('json', 5.6, 5.37), step('json', 11.2, 0.76)];
    expect(growthFigure(cutOff).value).toBeGreaterThan(2.5 * check.threshold('memory-growth'));
    expect(diagnose(cutOff)).toMatch(/smaller exports are built whole/);
  });

  test('the file name is read from Content-Disposition, quoted or not', () => {
    expect(attachmentName('attachment; filename="orders-2025-03-14-2025-03-15.csv"')).toBe('orders-2025-03-14-2025-03-15.csv');
    expect(attachmentName('attachment; filename=orders-2025-03-14-now.json')).toBe('orders-2025-03-14-now.json');
    expect(attachmentName('inline; filename="orders.csv"')).toBeNull();
    expect(attachmentName(undefined)).toBeNull();
  });

  test("the post-mortem commands are split into words as a shell would", () => {
    expect(words(`node -e "require('fs').mkdirSync('reports', { recursive: true })"`)).toEqual(['node', '-e', "require('fs').mkdirSync('reports', { recursive: true })"]);
    expect(commandLines('$ node a.js\n\n# a comment\nnode b.js\n')).toEqual(['node a.js', 'node b.js']);
  });
});
