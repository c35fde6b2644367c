'use strict';
// Lab 11's check: how many queries does one request send to the database,
// and how many round trips does it wait for?
//
// The check owns the database (the lab's own, PostgreSQL in PGlite, in a
// child process) and the network in front of it: wire.js, in the check's
// process, holds every round trip for a fixed delay d and records every
// statement the app sends, with the moment it arrived (owned-database.js
// says why at the wire). The app gets the proxy as DATABASE_URL.
//
// Two gates:
//   queries-per-request  a count (exact): the statements that read or change
//                        data (transaction control and session settings are
//                        not counted) sent while one request was answered,
//                        for customers with from none to more than 20
//                        orders, one request at a time; the most any request
//                        sent. Looping over the orders sends one query for
//                        the orders and one per order, 21 for a full page;
//                        a join sends one, `= ANY($1)` two. The lesson is a
//                        number of queries that does not grow with the
//                        orders, so at most 2 pass. Queries run in parallel
//                        on many connections are still one per order: they
//                        hide the round trips from one request's latency,
//                        but the database does every one of them, and each
//                        holds a connection of the pool.
//   latency-p50          fixed delay: the median latency of requests sent
//                        one after another (one connection) for customers
//                        with full pages of orders, in units of d. Each
//                        query waits d at the proxy, so a request that waits
//                        for 21 queries in turn takes at least 21 d, one
//                        that waits for 2 about 2 d plus its own few
//                        milliseconds, whatever the machine; under 7 d
//                        passes.
// Beside the gates, response cases: each answer equal to the database's at
// that moment (asked of the database by the check itself), lone and sampled
// under five connections of load; every answer read from the database when
// it is asked (at least one query per request, and the data changes
// between phases, so an answer kept from before is stale); the app only
// reads (no CREATE FUNCTION that moves the loop into the database, no
// tables of its own); a 400 for a customer id that is not a number; and
// database.js and wire.js as shipped. The measured margins are in
// check/margins.json.

const { setTimeout: sleep } = require('node:timers/promises');
const { runLoad } = require('../../../scripts/harness/run-load');
const { get } = require('../../../scripts/harness/http-client');
const { median } = require('../../../scripts/harness/stats');
const { responseCase } = require('../../../scripts/checks/gates');
const { answersUnderLoad } = require('../../../scripts/checks/under-load');
const { defineCheck } = require('../../../scripts/checks/define-check');
const { isShipped } = require('../../../scripts/lib/shipped');
const { startOwnedDatabase } = require('./owned-database');
const { expectedAnswers, changeData, customersWith, busyCustomers, answerProblem, RECENT_ORDERS } = require('./answers');

const SETTINGS = {
  delayMs: 20, // d
  loneOrderCounts: [24, 20, 3, 1, 0], // customers asked for one at a time (24: a full page of 20, and more)
  busyCustomers: 40, // customers with more than 20 orders, for the loads
  sequentialSeconds: 1.5, // requests one after another, for the latency
  connections: 5,
  loadSeconds: 1.2,
  graceDelays: 2, // how long after an answer its queries still count, in d
};
const MAX_QUERIES = 2;
const THRESHOLD = 7;
const SHIPPED = ['database.js', 'wire.js'];

const standardLoad = {
  path: '/customers/42/orders',
  connections: 10,
  duration: 10,
  describe: 'GET /customers/42/orders (24 orders: a full page of 20), 10 connections',
  examples: ['/customers/42/orders', '/customers/13/orders', '/customers/45/orders'],
};

const ordersPath = (id) => `/customers/${id}/orders`;
const counted = (s) => s.kind !== 'control';

async function measure(ctx) {
  const { progress, lab } = ctx;
  const d = SETTINGS.delayMs;
  const responses = SHIPPED.map((file) => {
    const shipped = isShipped(lab, file);
    return {
      name: `${file} is as shipped`,
      pass: shipped,
      expected: 'the lab\'s database and network as shipped (the fix belongs in app.js)',
      actual: shipped ? 'unchanged' : `changed: undo your edits to labs/${lab.slug}/${file}`,
    };
  });

  progress(`Starting the check's own database (PostgreSQL in PGlite) and the network in front of it: every round trip takes d = ${d} ms`);
  const db = await startOwnedDatabase({ delayMs: d, progress });
  try {
    // The app starts while the database does: it connects on its first query.
    const [app, sql] = await Promise.all([ctx.start(ctx.candidate, undefined, { env: { DATABASE_URL: db.url } }), db.ready]);
    const { statements } = db;
    const lone = await customersWith(sql, SETTINGS.loneOrderCounts);
    const busy = await busyCustomers(sql, SETTINGS.busyCustomers);
    const everyone = [...new Set([...lone.map((c) => c.id), ...busy])];
    let revision = 1;
    const history = new Map(); // customer id -> [{revision, answer}]
    const remember = (answers) => {
      for (const [id, answer] of answers) history.set(id, [...(history.get(id) || []), { revision, answer }]);
      return answers;
    };
    let expected = remember(await expectedAnswers(sql, everyone));
    const judge = (id) => (body) => answerProblem(body, expected.get(id), (history.get(id) || []).filter((h) => h.revision < revision));
    const answerCase = (name, res, id) =>
      responseCase(name, res, { status: 200, describe: `status 200 with customer ${id}'s ${RECENT_ORDERS} most recent orders and their items, as the database holds them now`, body: judge(id) });

    progress(`Listening on ${app.url}. Asking for ${lone.length} customers' orders, one request at a time, counting the queries each sends`);
    const perRequest = [];
    let first = null;
    for (const { id, orders } of lone) {
      const from = performance.now();
      const res = await get(`${app.url}${ordersPath(id)}`).catch((e) => e);
      // Queries sent after the answer still belong to it.
      await sleep(SETTINGS.graceDelays * d);
      const mine = statements.filter((s) => s.at >= from && counted(s));
      perRequest.push({ id, orders, queries: mine.length, ms: res instanceof Error ? NaN : res.ms });
      first ??= { id, orders, statements: mine };
      responses.push(answerCase(`GET ${ordersPath(id)} (${orders} orders)`, res, id));
      responses.push({
        name: `GET ${ordersPath(id)} read its answer from the database`,
        pass: mine.length > 0,
        expected: 'at least one query while the request was answered',
        actual: mine.length ? `${mine.length} queries` : 'none: the answer was not read from the database when it was asked for',
      });
      const sofar = queriesFigure(perRequest);
      progress(`  customer ${id} (${orders} orders): ${mine.length} queries, ${res instanceof Error ? res.message : `${res.ms.toFixed(0)} ms`}`);
      ctx.decide({ figures: { 'queries-per-request': sofar }, responses, info: infoOf({ d, first, perRequest }) }, `${perRequest.length === 1 ? 'one request' : `${perRequest.length} requests`}, one at a time`);
    }
    const bad = await get(`${app.url}/customers/not-a-number/orders`).catch((e) => e);
    responses.push(
      responseCase('GET /customers/not-a-number/orders', bad, {
        status: 400,
        describe: 'status 400 {"error":"customerId must be a number"}',
        body: (body) => (body.replace(/\s/g, '') === '{"error":"customerIdmustbeanumber"}' ? null : `got ${body.slice(0, 80)}`),
      }),
    );
    ctx.assertAlive(app, 'while its answers were checked');
    // An app that changes the database (a function that loops inside it, a
    // table of its own) fails whenever it does it; judged now, and again at the end.
    if (changesCase(statements)) responses.push(changesCase(statements));
    ctx.decide({ figures: { 'queries-per-request': queriesFigure(perRequest) }, responses, info: infoOf({ d, first, perRequest }) }, `${perRequest.length} requests one at a time`);

    revision = 2;
    await changeData(sql, everyone, revision);
    expected = remember(await expectedAnswers(sql, everyone));
    progress(`The data changed (revision ${revision}). Requests one after another for ${SETTINGS.sequentialSeconds} s, for customers with full pages of orders: the latency`);
    const sequentialFrom = performance.now();
    const sequential = await runLoad({ url: app.url, path: (i) => ordersPath(busy[i % busy.length]), connections: 1, duration: SETTINGS.sequentialSeconds });
    ctx.assertAlive(app, 'while requests were sent one after another');
    await sleep(SETTINGS.graceDelays * d);
    const sequentialQueries = statements.filter((s) => s.at >= sequentialFrom && counted(s)).length;
    responses.push(loadCase(`${sequential.responses} requests one after another`, sequential, sequentialQueries));
    const p50 = sequential.latency.p50;
    const p10 = sequential.raw.latency.p10;
    const latencyFigure = { value: p50, per: d, scale: `d = ${d} ms, the delay of each round trip to the database` };
    ctx.decide(
      { figures: { 'queries-per-request': queriesFigure(perRequest), 'latency-p50': latencyFigure }, responses, info: infoOf({ d, first, perRequest, p50, p10 }) },
      `${perRequest.length} requests one at a time and ${sequential.responses} one after another`,
    );

    revision = 3;
    await changeData(sql, everyone, revision);
    expected = remember(await expectedAnswers(sql, everyone));
    progress(`The data changed (revision ${revision}). Load: ${SETTINGS.connections} connections for ${SETTINGS.loadSeconds} s, answers sampled`);
    const loadFrom = performance.now();
    const cpuBefore = await app.cpuAndRequests();
    const load = await runLoad({
      url: app.url,
      path: (i) => ordersPath(busy[i % busy.length]),
      connections: SETTINGS.connections,
      duration: SETTINGS.loadSeconds,
      // One more connection keeps its answers, to check what the app sends while it is busy.
      sample: { path: (i) => ordersPath(busy[(7 * i) % busy.length]), keep: 40 },
    });
    ctx.assertAlive(app, 'under load');
    const cpuAfter = await app.cpuAndRequests();
    await sleep(SETTINGS.graceDelays * d);
    const loadQueries = statements.filter((s) => s.at >= loadFrom && counted(s)).length;
    const loadAnswered = load.responses + (load.sampled ? load.sampled.sent : 0);
    const cpuShare = (cpuAfter.total - cpuBefore.total) / 1000 / (load.durationS * 1000);
    responses.push(loadCase(`${load.responses} requests under load`, load, loadQueries, load.sampled ? load.sampled.sent : 0));
    const loadRevision = revision;
    responses.push(
      answersUnderLoad({
        name: `${load.sampled.answers.length} answers sampled under load`,
        answers: load.sampled.answers,
        errors: load.sampled.errors,
        expected: `each customer's orders at data revision ${loadRevision}`,
        verify: (a) => (a.status === 200 ? judge(Number(a.path.split('/')[2]))(a.body.toString('utf8')) : `status ${a.status}`),
      }),
    );

    revision = 4;
    await changeData(sql, everyone, revision);
    expected = remember(await expectedAnswers(sql, everyone));
    progress(`The data changed (revision ${revision}). Asking for the same customers again`);
    for (const { id, orders } of lone.slice(0, 3)) {
      const res = await get(`${app.url}${ordersPath(id)}`).catch((e) => e);
      responses.push(answerCase(`GET ${ordersPath(id)} after the data changed`, res, id));
    }
    ctx.assertAlive(app, 'while its answers were checked');

    // Everything the app sent, from its first connection: reads only.
    if (!responses.some((r) => r.name === READS_ONLY)) responses.push(changesCase(statements) || { name: READS_ONLY, pass: true, expected: READS_EXPECTED, actual: 'reads only' });

    const figures = { 'queries-per-request': queriesFigure(perRequest), 'latency-p50': latencyFigure };
    // A request that waits for at most MAX_QUERIES round trips needs about
    // that many d: if even the fastest tenth came in under MAX_QUERIES + 1
    // round trips while the median took past the threshold, the requests
    // were held up by the machine, not by their queries.
    const noise =
      p50 >= THRESHOLD * d && figures['queries-per-request'].value <= MAX_QUERIES && p10 < (MAX_QUERIES + 1) * d
        ? [`the fastest tenth of the requests took ${p10.toFixed(0)} ms, under ${MAX_QUERIES + 1} round trips (${(MAX_QUERIES + 1) * d} ms), but the median took ${p50.toFixed(0)} ms: the machine held requests up`]
        : [];
    return {
      figures,
      responses,
      info: [
        ...infoOf({ d, first, perRequest, p50, p10 }),
        { id: 'load-queries', label: `queries per request under load (${SETTINGS.connections} connections)`, value: loadAnswered ? loadQueries / loadAnswered : NaN, unit: 'queries' },
        { id: 'connections', label: 'connections the app opened to the database', value: db.connections(), unit: 'connections' },
        { id: 'cpu', label: 'CPU the app used during the load', value: cpuShare * 100, unit: '% of one core', text: 'the app spends most of each request waiting for the database, not computing' },
        { id: 'throughput', label: `throughput, ${SETTINGS.connections} connections`, value: load.requestsPerSec, unit: 'req/s' },
      ],
      noise,
      series: {
        d,
        p10,
        p50,
        p90: sequential.latency.p90,
        perRequest: perRequest.map((r) => r.queries),
        sequentialQueries: sequential.responses ? sequentialQueries / sequential.responses : NaN,
        loadQueries: loadAnswered ? loadQueries / loadAnswered : NaN,
        requestsPerSec: load.requestsPerSec,
        cpuShare,
      },
    };
  } finally {
    await db.close();
  }
}

/** The most queries any one lone request sent. */
function queriesFigure(perRequest) {
  const worst = perRequest.reduce((a, b) => (b.queries > a.queries ? b : a), perRequest[0]);
  return { value: worst.queries, scale: `the most of ${perRequest.length} requests, one at a time (customer ${worst.id}, ${worst.orders} orders)` };
}

/** What the learner reads besides the gates: d, and what one request sent. */
function infoOf({ d, first, perRequest, p50, p10 }) {
  const info = [{ id: 'd', label: 'delay of each round trip to the database (d)', value: d, unit: 'ms' }];
  if (first) {
    const byText = new Map();
    for (const s of first.statements) byText.set(oneLine(s.text, 72), (byText.get(oneLine(s.text, 72)) || 0) + 1);
    info.push({
      id: 'one-request',
      label: `queries of one request (customer ${first.id}, ${first.orders} orders)`,
      value: first.statements.length,
      unit: 'queries',
      text: [...byText].map(([text, n]) => `${n}× ${text}`).join('; '),
    });
  }
  info.push({ id: 'lone', label: 'one request at a time (median)', value: median(perRequest.map((r) => r.ms).filter(Number.isFinite)), unit: 'ms' });
  if (p50 !== undefined) info.push({ id: 'rounds', label: 'median latency, requests one after another, in round trips of d', value: p50 / d, unit: 'd', text: `p10 ${p10.toFixed(0)} ms, median ${p50.toFixed(0)} ms` });
  return info;
}

/**
 * Every request of a load answered 200, with at most MAX_QUERIES queries
 * each on average (a request cut off when the load stopped may have sent
 * its queries without its answer being counted: one per connection). Fewer
 * than one each is fine: a fix may batch the queries of requests that
 * arrive together.
 */
function loadCase(name, load, queries, sampled = 0) {
  const ok = load.statusCodes['200'] || 0;
  const errors = load.errors + load.timeouts;
  const answered = load.responses + sampled;
  const perRequest = answered ? queries / answered : NaN;
  const limit = MAX_QUERIES * (answered + load.connections + (sampled ? 1 : 0));
  return {
    name,
    pass: ok === load.responses && errors === 0 && queries <= limit && queries > 0,
    expected: `status 200 for every one, and at most ${MAX_QUERIES} queries per request`,
    actual: `${JSON.stringify(load.statusCodes)}, ${errors} errors or timeouts; ${queries} queries for ${answered} requests (${perRequest.toFixed(1)} each)`,
  };
}

const READS_ONLY = 'the app only reads the database';
const READS_EXPECTED = 'queries that read (SELECT, WITH) and transaction control; the schema and data as the database holds them';

/** A failing response case when the app has sent statements that change the database, or null. */
function changesCase(statements) {
  const changes = statements.filter((s) => s.kind === 'change');
  if (!changes.length) return null;
  return { name: READS_ONLY, pass: false, expected: READS_EXPECTED, actual: `${changes.length} statements that change it, e.g. ${oneLine(changes[0].text)}` };
}

function oneLine(sql, max = 110) {
  const flat = sql.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

module.exports = defineCheck(
  {
    // Why each threshold. Benched (check/margins.json: 10 runs a side, Node
    // 20 idle and with a hog, Node 26 idle, 60 of 60 verdicts right): the
    // starter 21 queries and a median of 470-492 ms (worst 3.3× past 7 d),
    // the reference 2 queries and 45-47 ms (worst 2.9× inside). The figures
    // of the development runs (a busy shared 2-vCPU machine, Node 20.20.2
    // and 26.10.0, idle and beside a CPU hog):
    // - queries-per-request: a count, the same on any machine. The starter
    //   sends 1 + one per order (21 for a full page); the reference 2, a
    //   join 1, a batch by hand 2. Queries sent together (Promise.all on the
    //   pool, pg's pipelined client) still count one per order: 21.
    // - latency-p50: at d = 20 ms the starter's median was 467 ms (23 d),
    //   the reference 45-54 ms (2.3-2.7 d; 48 ms beside a hog), a join 23 ms
    //   (1.2 d), the reference's queries in a read-only transaction 89 ms
    //   (4.5 d: BEGIN and COMMIT are round trips too). 21 round trips
    //   against 2 is a gap of about 10×, so no threshold sits 3× from both
    //   sides in every run: 7 d is about 3× under the starter's physical
    //   minimum (21 d) and 3× over the reference's median; the exact count
    //   decides the starter first anyway. A median past 7 d whose fastest
    //   tenth took under 3 d is the machine, and the check says "too noisy".
    gates: {
      'queries-per-request': {
        label: 'queries per request',
        op: '<',
        threshold: MAX_QUERIES + 1,
        exact: true,
        unit: 'queries',
        pass: 'Each request sends a fixed number of queries, however many orders the customer has.',
        fail: 'A request sends one query more for every order: the items are fetched order by order (N+1).',
      },
      'latency-p50': {
        label: 'median latency, requests one after another',
        op: '<',
        threshold: THRESHOLD,
        per: 'd',
        unit: 'ms',
        pass: 'A request waits for a few round trips to the database, not one per order.',
        fail: 'A request waits for many round trips to the database, one after another.',
      },
    },
    starterFails: ['queries-per-request', 'latency-p50'],
    settings: SETTINGS,
    // `workbook run`, `load` and `profile` start the lab's database as
    // database.js does for `node app.js` (its network's delay from
    // DATABASE_DELAY_MS, its statement log with DATABASE_LOG=1) and give the
    // app its address in DATABASE_URL, as this check gives it its own.
    services: {
      env: ['DATABASE_URL'],
      describe: "the lab's database (PostgreSQL in PGlite, behind its network)",
      start: ({ progress }) =>
        require('../../../scripts/harness/lab-services').forkService(require.resolve('../database'), {
          progress,
          toEnv: (message) => ({ DATABASE_URL: message.url }),
        }),
    },
    standardLoad,
    advice: 'Count the queries of one request: `DATABASE_LOG=1 npx workbook run 11`, then one curl, prints each statement PostgreSQL runs',
    measure,
    explain: {
      kind: 'fixed-delay',
      noise: 'the median latency was past the threshold while the app sent at most two queries per request and the fastest tenth of the requests took less than three round trips, which a request that waits for the database more often cannot do: the machine held most requests up.',
    },
    captures: [{ load: true }, { tool: 'cpu' }, { tool: 'clinic-doctor' }, { tool: 'bubbleprof' }, { tool: 'bubbleprof', solution: true }],
    tools: ['cpu', 'clinic-doctor', 'bubbleprof'],
    charts: [
      {
        kind: 'gate-bars',
        title: `Median latency of requests one after another, against ${THRESHOLD} × d`,
        gates: [{ id: 'latency-p50', label: 'median latency' }],
      },
    ],
  },
  __filename,
);
