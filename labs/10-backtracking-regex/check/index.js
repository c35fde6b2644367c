'use strict';
// Lab 10's check: does a crafted address cost the app more than an ordinary
// one, do the other routes stay responsive while an attacker sends crafted
// addresses, and does the app still give the specification's answer on
// every address?
//
// Three stages, the one that catches the starter first:
// 1. crafted against ordinary (crafted.js): for each family of crafted
//    address (addresses.js), the time to judge one against an ordinary
//    address of the same length, sent one after the other, the run growing
//    up to the longest the specification's limits allow. A backtracking
//    pattern's time grows exponentially with the run, a linear one's not at
//    all: the starter is decided as soon as one crafted address takes
//    DECISIVE times the threshold (FIGURES_STAGE1).
// 2. the corpus (addresses.js): valid and invalid addresses for every rule,
//    valid ones at each length limit among them, so that "refuse whatever
//    is long" and "accept whatever looks like an address" both fail.
// 3. the attack: several clients send crafted addresses on a timer, each
//    whether or not its last one was answered, while /health, the latest
//    issue and ordinary sign-ups are timed beside the probe's control route
//    (a server on a thread of the probe's own in the app's process, which
//    runs none of its code). The figure is the slowest route's median less
//    the control route's, in units of c, the control route's median: no
//    delay of the app's own reaches c, so an app cannot widen its own
//    threshold by answering slowly.
//
// Stage 3 is what a time limit on the starter's pattern fails. A match
// boxed in a `vm` context with a timeout of a few milliseconds (or in a
// worker) gives the right answer in a few milliseconds, which stage 1
// cannot tell from a fast pattern's once the HTTP round trip is added; but
// the box holds the event loop (or a thread) for its whole length on every
// crafted address. At ATTACK_RATE crafted addresses a second, a linear
// pattern uses a fraction of the main thread (FIGURES_CPU) and a 3 ms box
// more than all of it: requests queue, and every route waits.
//
// Nothing here depends on the machine's speed: stage 1 is a ratio in one
// run, stage 3 a multiple of a round trip measured at the same moments.
// Every address is drawn afresh on every run. The measured margins are in
// check/margins.json.

const { randomInt } = require('node:crypto');
const { setTimeout: sleep } = require('node:timers/promises');
const { get, json, request } = require('../../../scripts/harness/http-client');
const { median } = require('../../../scripts/harness/stats');
const { startRouteProbe } = require('../../../scripts/harness/route-probe');
const { routesUnderLoad, slowestRoute } = require('../../../scripts/checks/under-load');
const { responseCase, truncate, counted } = require('../../../scripts/checks/gates');
const { defineCheck, DECISIVE } = require('../../../scripts/checks/define-check');
const { generator, corpus, ordinaryAddress, isAddress, FAMILIES, MAX_RUN } = require('./addresses');
const { judgeCrafted, subscribe, answerProblem, FIRST_RUN } = require('./crafted');

const SETTINGS = {
  // Stage 1: the families of crafted address (addresses.js), their runs
  // growing from firstRun letters to maxRun.
  families: FAMILIES.length,
  firstRun: FIRST_RUN,
  maxRun: MAX_RUN,
  // Pairs timed at the longest run; a family stops growing once its
  // crafted address takes stopRatio × an ordinary one, or maxCraftedMs once
  // the verdict is certain; no request waits longer than requestTimeoutMs.
  topPairs: 5,
  stopRatio: 100,
  maxCraftedMs: 1000,
  requestTimeoutMs: 8000,
  // Stage 3: `attackers` clients, each sending a crafted address every
  // attackEveryMs whether or not its last one was answered, for `seconds`;
  // the routes timed every probeEveryMs meanwhile.
  seconds: 1.5,
  attackers: 5,
  attackEveryMs: 20,
  probeEveryMs: 50,
  // How long the probes wait, once the attack ends, for answers still on
  // their way (a linear app has none left; one that fell behind the attack
  // is past its threshold many times over by then).
  drainMs: 2000,
};

// The issue GET /newsletter/latest answers (the walkthrough's "The API").
const LATEST_ISSUE = 42;

/**
 * The standard load (`workbook load 10`, the profilers, the captures):
 * autocannon reads the latest issue from 2 connections while, in the
 * background, one client signs up an ordinary address every 100 ms and
 * another sends a crafted address every 2 s: a run of STANDARD_RUN letters
 * before a separator and the @, about half a second to a second of
 * backtracking for the starter on a laptop (each character more doubles
 * it). The background starts in setup() and stops by itself when the app
 * stops answering, or after 10 minutes; its sockets do not keep a command
 * alive.
 */
const STANDARD_RUN = 26;
const standardLoad = {
  async setup(url) {
    const rand = generator(randomInt(2 ** 31));
    const stopAt = Date.now() + 600_000;
    const send = (email) => request(`${url}/subscribe`, { method: 'POST', body: JSON.stringify({ email }), timeoutMs: 60_000 });
    const every = async (ms, make) => {
      while (Date.now() < stopAt) {
        const started = Date.now();
        await send(make());
        await sleep(Math.max(0, started + ms - Date.now()), undefined, { ref: false });
      }
    };
    const family = FAMILIES.find((f) => f.id === 'local-separator-before-at');
    every(standardLoad.signUpEveryMs, () => ordinaryAddress(rand, rand.int(16, 40))).catch(() => {});
    every(standardLoad.craftedEverySeconds * 1000, () => family.make(rand, standardLoad.craftedRun)).catch(() => {});
  },
  path: '/newsletter/latest',
  connections: 2,
  duration: 10,
  signUpEveryMs: 100,
  craftedEverySeconds: 2,
  craftedRun: STANDARD_RUN,
  describe: `GET /newsletter/latest from 2 connections, while one client signs up an ordinary address every 100 ms and another sends a crafted one (a run of ${STANDARD_RUN} letters, then "-@") every 2 s`,
  examples: ['/health', '/newsletter/latest'],
};

async function measure(ctx) {
  const { progress } = ctx;
  const seed = randomInt(2 ** 31);
  const rand = generator(seed);
  const threshold = ctx.check.threshold('crafted-ratio');

  progress('Starting the app');
  let app = await ctx.start(ctx.candidate);
  progress(`Listening on ${app.url}. Checking /health and the latest issue`);
  const responses = [
    responseCase('GET /health', await get(`${app.url}/health`).catch((e) => e), { status: 200 }),
    responseCase('GET /newsletter/latest', await get(`${app.url}/newsletter/latest`).catch((e) => e), latestIssue()),
  ];
  ctx.assertAlive(app, 'while its responses were checked');

  progress(
    `Stage 1: crafted addresses against ordinary ones of the same length, ${FAMILIES.length} families, ` +
      `runs growing from ${FIRST_RUN} letters to ${MAX_RUN} (the longest the specification's limits allow)`,
  );
  const crafted = await judgeCrafted({
    url: app.url,
    rand,
    settings: SETTINGS,
    decisiveRatio: DECISIVE * threshold,
    early: ctx.early,
    progress,
  });
  ctx.assertAlive(app, 'while crafted addresses were judged');
  responses.push(craftedAnswers(crafted));
  const v = crafted.v;
  const info = [];
  const ratioFigure = () => ({
    value: crafted.worst.ratio,
    scale: `worst family ${crafted.worst.id}: ${crafted.worst.crafted.toFixed(1)} ms against ${crafted.worst.ordinary.toFixed(1)} ms, ${crafted.worst.length} characters${crafted.worst.stopped ? ` (a run of ${crafted.worst.n}, where the check stopped)` : ''}`,
  });
  info.push(...craftedInfo(crafted));
  ctx.decide({ figures: { 'crafted-ratio': ratioFigure() }, responses, info }, 'crafted addresses against ordinary ones');

  if (crafted.held) {
    // Only with early verdicts off (the bench): the app is stuck in one
    // crafted address, perhaps for years. Start it afresh to measure the rest.
    progress('The app is stuck in a crafted address: starting it afresh for the rest of the check');
    await app.stop({ graceMs: 0 });
    app = await ctx.start(ctx.candidate);
  }

  progress(`Stage 2: the answers to ${corpus(generator(0)).length} addresses, one for each rule of the specification`);
  responses.push(...(await checkCorpus(app, rand)));
  ctx.assertAlive(app, 'while the corpus was checked');
  ctx.decide({ figures: { 'crafted-ratio': ratioFigure() }, responses, info }, 'the answers to the corpus');

  // Stage 3 sends the crafted addresses stage 1 reached: the longest run of
  // every family for an app that judges them all quickly; for one that does
  // not, the family and run at which it stopped.
  const attack = crafted.complete ? FAMILIES.map((f) => [f, MAX_RUN]) : [[FAMILIES.find((f) => f.id === crafted.worst.id), crafted.worst.n]];
  const stage = await routesWhileCrafted(app, ctx, rand, attack);

  const slowest = slowestRoute(stage.routes);
  const c = stage.control.p50;
  const figures = {
    'crafted-ratio': ratioFigure(),
    'routes-p50': {
      value: Math.max(0, slowest.p50 - c),
      per: c,
      scale: `c = ${c.toFixed(2)} ms, the control route's median meanwhile; ${slowest.name} ${slowest.p50.toFixed(1)} ms less that`,
    },
  };
  responses.push(...stage.responses);

  // Too few answers to take a median of, or an attack the check's own
  // process was held up from sending (far fewer crafted addresses than it
  // meant to): a pass would say nothing. A routes' figure already DECISIVE
  // times past its threshold still says FAIL: requests still unanswered
  // when the probes stopped count as that late, so the figure can only be
  // an underestimate.
  const noise = [];
  const decisive = ctx.check.decisive({ 'routes-p50': figures['routes-p50'] });
  if (stage.control.answered < 10) noise.push(`only ${counted(stage.control.answered, 'request')} to the control route came back`);
  if (!decisive) {
    for (const route of stage.routes) if (route.answered < 10) noise.push(`only ${counted(route.answered, 'request')} to ${route.name} came back`);
    if (stage.attack.sent < 0.8 * stage.attack.planned) {
      noise.push(`the check could send only ${stage.attack.sent} of the ${stage.attack.planned} crafted addresses it meant to (its own process was held up)`);
    }
  }

  info.push({
    id: 'routes-p99',
    label: 'p99 latency of each protected route during the attack',
    value: Math.max(...stage.routes.map((r) => r.p99)),
    unit: 'ms',
    text: `${stage.routes.map((r) => `${r.name} ${r.p99.toFixed(0)} ms`).join(', ')}; the control route ${stage.control.p99.toFixed(0)} ms`,
  });
  info.push({
    id: 'attack',
    label: 'crafted addresses answered during the attack',
    value: stage.attack.answered,
    unit: '',
    text: `of ${stage.attack.sent} sent in ${SETTINGS.seconds} s (${attackRate()} a second planned)${stage.attack.late ? `; ${stage.attack.late} still unanswered when the check stopped waiting` : ''}`,
  });

  return {
    figures,
    responses,
    info,
    noise,
    series: {
      v,
      families: crafted.families.map((f) => ({ id: f.id, n: f.n, ratio: f.ratio, crafted: f.crafted, ordinary: f.ordinary, length: f.length, stopped: f.stopped })),
      routes: Object.fromEntries(stage.routes.map((r) => [r.name, { p50: r.p50, p90: r.p90, p99: r.p99 }])),
      control: { route: { p50: stage.control.p50, p99: stage.control.p99 } },
      attack: stage.attack,
    },
  };
}

function latestIssue() {
  return {
    status: 200,
    describe: `status 200 with issue ${LATEST_ISSUE} as JSON`,
    body: (body) => (json({ body })?.issue === LATEST_ISSUE ? null : `not issue ${LATEST_ISSUE}: ${truncate(body, 80)}`),
  };
}

function craftedAnswers(crafted) {
  const { wrong, sent, held } = crafted;
  return {
    name: `the answers to ${sent} crafted and ordinary addresses, sent one at a time`,
    pass: wrong.length === 0 && !held,
    expected: 'the specification\'s answer for each: 201 {"subscribed": …} for a valid address, 400 {"error": …} for an invalid one',
    actual: wrong.length
      ? `${wrong.length} of them wrong, e.g. ${JSON.stringify(truncate(wrong[0].email, 70))}: ${wrong[0].problem}`
      : held
        ? `no answer within ${SETTINGS.requestTimeoutMs / 1000} s to ${JSON.stringify(truncate(held.email, 70))} (${held.email.length} characters)`
        : 'all right',
  };
}

function craftedInfo(crafted) {
  const [shortest, longest] = crafted.ordinaryLengths;
  const lines = [
    {
      id: 'v',
      label: 'time to judge an ordinary address, one at a time (v)',
      value: crafted.v,
      unit: 'ms',
      text: `the median of ${crafted.ordinaryCount} sign-ups of ordinary addresses, ${shortest} to ${longest} characters long, each sent beside a crafted address of its length`,
    },
  ];
  if (crafted.worst) {
    const w = crafted.worst;
    const at = `family ${crafted.families.length} of ${FAMILIES.length}`;
    let why;
    if (crafted.complete) why = `all ${crafted.families.length} families reached a run of ${MAX_RUN}`;
    else if (crafted.held) why = `the check stopped at ${at}, whose crafted address got no answer within ${SETTINGS.requestTimeoutMs / 1000} s`;
    else if (crafted.wrong.length) why = `the check stopped at ${at}, on a wrong answer (see the responses above)`;
    else why = `the check stopped there, at ${at}, already past the threshold${growth(w)}`;
    lines.push({
      id: 'crafted-worst',
      label: `the slowest crafted address: ${w.describe}`,
      value: w.crafted,
      unit: 'ms',
      text: `${w.length} characters (a run of ${w.n}), e.g. ${JSON.stringify(truncate(w.example, 60))}; ${why}`,
    });
  }
  return lines;
}

/** What the last letter of a family's climb did to its crafted address's time, as measured. */
function growth(family) {
  const [before, last] = family.steps.slice(-2);
  if (!before || last.n !== before.n + 1 || !(before.crafted > 0)) return '';
  return `: its last letter multiplied the time by ${(last.crafted / before.crafted).toFixed(1)}`;
}

/** Every rule of the specification, and the shape of a request, each a response case. */
async function checkCorpus(app, rand) {
  const results = [];
  const cases = corpus(rand);
  for (const { rule, address } of cases) {
    const res = await subscribe(app.url, address, { timeoutMs: SETTINGS.requestTimeoutMs });
    const problem = answerProblem(address, res);
    const expected = isAddress(address) ? 'status 201 {"subscribed": …} (valid)' : 'status 400 {"error": …} (invalid)';
    results.push({ name: `${rule}: ${JSON.stringify(truncate(address, 60))}`, pass: !problem, expected, actual: problem || 'as expected' });
  }
  // The same address again, and in capitals: one subscriber.
  const again = cases[0].address;
  for (const [name, email] of [
    ['the first address again', again],
    ['the first address again, in capitals', again.toUpperCase()],
  ]) {
    const res = await subscribe(app.url, email, { timeoutMs: SETTINGS.requestTimeoutMs });
    results.push(
      responseCase(`${name}: ${JSON.stringify(truncate(email, 60))}`, res, {
        status: 200,
        describe: `status 200 {"subscribed": "${truncate(again.toLowerCase(), 40)}", "already": true}`,
        body: (body) => (json({ body })?.subscribed === again.toLowerCase() && json({ body })?.already === true ? null : `got ${truncate(body, 80)}`),
      }),
    );
  }
  const errorCase = async (name, body) => {
    const res = await request(`${app.url}/subscribe`, { method: 'POST', body, timeoutMs: SETTINGS.requestTimeoutMs }).catch((e) => e);
    results.push(
      responseCase(name, res, {
        status: 400,
        describe: 'status 400 with a JSON error',
        body: (text) => (typeof json({ body: text })?.error === 'string' ? null : `no {"error": "..."} in ${truncate(text, 80)}`),
      }),
    );
  };
  await errorCase('a body without an email', '{"name":"Ann"}');
  await errorCase('an email that is not a string', '{"email":42}');
  await errorCase('a body that is not JSON', '{"email": "ann@');
  return results;
}

/**
 * Stage 3: SETTINGS.attackers clients each send a crafted address every
 * SETTINGS.attackEveryMs for SETTINGS.seconds, on time whether or not their
 * last one was answered (an attacker does not wait: an app cannot slow the
 * attack down by answering late), while /health, the latest issue and
 * sign-ups of ordinary addresses are timed, and the probe's control route
 * beside them.
 */
async function routesWhileCrafted(app, ctx, rand, attack) {
  const { progress } = ctx;
  const { attackers, attackEveryMs, seconds, probeEveryMs } = SETTINGS;
  progress(
    `Stage 3: ${attackers} clients each send a crafted address every ${attackEveryMs} ms for ${seconds} s ` +
      `(${attackRate()} a second); timing /health, the latest issue, ordinary sign-ups and a control route of the probe's own every ${probeEveryMs} ms`,
  );
  await app.waitUntilIdle();
  const control = await app.startControl();
  const signUps = new Map(); // sent body → address
  const probes = [
    startRouteProbe(app.url, { name: '/health', path: '/health', intervalMs: probeEveryMs }),
    startRouteProbe(app.url, { name: '/newsletter/latest', path: '/newsletter/latest', intervalMs: probeEveryMs }),
    startRouteProbe(app.url, {
      name: 'POST /subscribe (ordinary addresses)',
      path: '/subscribe',
      method: 'POST',
      intervalMs: probeEveryMs,
      body: () => {
        const email = ordinaryAddress(rand, rand.int(16, 40));
        const body = JSON.stringify({ email });
        signUps.set(body, email);
        return body;
      },
    }),
  ];
  const controlProbe = startRouteProbe(control.url, { name: 'the control route', path: '/', intervalMs: probeEveryMs });

  // The attackers: route probes of their own, started a little apart so
  // that their requests are spread over each period rather than sent in one
  // burst. Every answer is kept, to be checked against the specification.
  const craftedSent = new Map(); // sent body → address
  let k = 0;
  const craftedBody = () => {
    const [family, n] = attack[k++ % attack.length];
    const email = family.make(rand, n);
    const body = JSON.stringify({ email });
    craftedSent.set(body, email);
    return body;
  };
  const attacks = [];
  const deadline = Date.now() + seconds * 1000;
  for (let a = 0; a < attackers; a++) {
    if (a) await sleep(attackEveryMs / attackers);
    attacks.push(startRouteProbe(app.url, { name: `crafted addresses ${a + 1}`, path: '/subscribe', method: 'POST', intervalMs: attackEveryMs, keep: Infinity, body: craftedBody }));
  }
  const ticker = setInterval(() => progress(`  … ${craftedSent.size} crafted addresses sent`), 1000);
  await sleep(Math.max(0, deadline - Date.now()));
  // Every probe stops at once; each waits (at most drainMs) for the answers
  // still on their way, and counts those it did not get as that late.
  const stop = (p) => p.stop({ maxWaitMs: SETTINGS.drainMs });
  const [routes, controlRoute, attacked] = await Promise.all([Promise.all(probes.map(stop)), stop(controlProbe), Promise.all(attacks.map(stop))]);
  clearInterval(ticker);
  await app.controlDelay(); // ends the control thread
  ctx.assertAlive(app, 'while crafted addresses arrived');

  const [health, latest, signUpRoute] = routes;
  const responses = routesUnderLoad([health, latest], {
    '/health': (s) => (json({ body: s.body })?.status === 'ok' ? null : `not {"status":"ok"}: ${truncate(s.body, 60)}`),
    '/newsletter/latest': (s) => (json({ body: s.body })?.issue === LATEST_ISSUE ? null : `not issue ${LATEST_ISSUE}: ${truncate(s.body, 60)}`),
  });
  // A new subscriber is 201, not 200: judged here rather than by routesUnderLoad.
  const signUpsWrong = signUpRoute.samples.map((s) => answerProblem(signUps.get(s.sent), s)).filter(Boolean);
  responses.push({
    name: `${counted(signUpRoute.sent, 'sign-up')} of ordinary addresses during the attack`,
    pass: signUpRoute.failures === 0 && signUpRoute.answered > 0 && signUpsWrong.length === 0,
    expected: 'status 201 {"subscribed": …} for each',
    actual: signUpRoute.failures
      ? `${signUpRoute.failures} failed`
      : signUpsWrong.length
        ? `${signUpsWrong.length} wrong, e.g. ${signUpsWrong[0]}`
        : signUpRoute.answered
          ? `${signUpRoute.answered} answered, all right`
          : 'none answered',
  });
  // The crafted addresses' own answers: each that came back must be the
  // specification's. One still unanswered when the stage ended is late, not
  // wrong: the routes' figure already says what waiting for it cost.
  const wrong = [];
  const sent = attacked.reduce((sum, a) => sum + a.sent, 0);
  const answered = attacked.reduce((sum, a) => sum + a.answered, 0);
  const failures = attacked.reduce((sum, a) => sum + a.failures, 0);
  for (const a of attacked) {
    for (const sample of a.samples) {
      const email = craftedSent.get(sample.sent);
      const problem = answerProblem(email, sample);
      if (problem) wrong.push({ email, problem });
    }
  }
  responses.push({
    name: `the answers to ${counted(answered, 'crafted address', 'crafted addresses')} sent during the attack`,
    pass: wrong.length === 0 && failures === 0 && answered > 0,
    expected: "the specification's answer for each",
    actual: wrong.length
      ? `${wrong.length} of them wrong, e.g. ${JSON.stringify(truncate(wrong[0].email, 60))}: ${wrong[0].problem}`
      : failures
        ? `${counted(failures, 'connection')} failed`
        : answered
          ? 'all right'
          : 'none was answered',
  });
  const planned = attackers * (Math.floor((seconds * 1000) / attackEveryMs) + 1);
  return { routes, control: controlRoute, responses, attack: { planned, sent, answered, late: sent - answered - failures } };
}

/** Crafted addresses a second in stage 3, all attackers together. */
function attackRate() {
  return Math.round((SETTINGS.attackers * 1000) / SETTINGS.attackEveryMs);
}

module.exports = defineCheck(
  {
    // Why these thresholds (margins in check/margins.json: 10-run benches of
    // 2026-11-26, Node 20 idle and with a hog, Node 24 and 26 idle, 80 of 80
    // verdicts right; crafted-ratio at the median: starter 123-170× (worst
    // 10.2× past), reference 1.13-1.28× (worst 6.2× inside); routes-p50:
    // starter worst 144× past, reference worst 3.5× inside):
    // - crafted-ratio: a linear pattern judges a crafted address in the time
    //   of an ordinary request of the same length (about 1×: the pattern's
    //   own microseconds vanish beside the HTTP round trip); the starter's
    //   time grows by half again or more with each letter of the run (1.5-2×
    //   a letter), so it passes 3 × 10 by a run of about 25 (the
    //   walkthrough's capture stopped at 27, 91 ms against 2.8 ms) and would
    //   take centuries at 62. A time limit that
    //   answers a crafted address after tens of milliseconds is no fix (see
    //   the walkthrough's contract) and fails too.
    // - routes-p50: an app that backtracks on its main thread holds every
    //   route for whole crafted addresses (hundreds of v); one that does not
    //   answers them within about one v of the control route.
    gates: {
      'crafted-ratio': {
        label: `time to judge a crafted address, against an ordinary one of the same length (the worst of ${FAMILIES.length} families)`,
        op: '<',
        threshold: 10,
        unit: '×',
        pass: 'A crafted address costs about what an ordinary one of its length costs: the time to judge an address no longer depends on its shape.',
        fail: 'A crafted address costs many times an ordinary one of the same length: the pattern backtracks, trying every way to cut a run of letters into pieces before it gives up (or the answer waits for something that does).',
      },
      'routes-p50': {
        label: "median latency of the slowest of /health, the latest issue and ordinary sign-ups during the attack, less the control route's",
        op: '<',
        threshold: 4,
        per: 'c',
        unit: 'ms',
        pass: 'Other requests are answered at once while crafted addresses arrive.',
        fail: 'Other requests wait while crafted addresses are judged: the event loop is held by each crafted address for longer than an ordinary one takes (the matching itself, or a time limit it runs out), and the attack outpaces it.',
      },
    },
    starterFails: ['crafted-ratio', 'routes-p50'],
    settings: SETTINGS,
    standardLoad,
    advice: 'Profile it with `npx workbook profile 10 --tool cpu` and read the name of the hottest frame',
    measure,
    explain: {
      kind: 'calibrated',
      calibration:
        `No absolute time is judged. The first figure is a ratio measured in one run: the time to judge a crafted address over the time to judge an ordinary address of the same length, sent one after the other, for ${FAMILIES.length} families of crafted address whose run of letters grows up to the longest the specification allows. The second is in units of v, the app's own median time to judge an ordinary address in that run, taken less what a control thread of the probe's own, in the same process, saw at the same time.`,
      noise: "fewer than ten requests to a route came back, or the machine held up even the probe's control route (it runs no app code) for half the routes' threshold. The crafted ratio needs no such rule: each pair's two addresses are sent back to back, so a slow moment of the machine falls on both; a family's figure is the median over its pairs, and a ratio that would end the check early must hold in a second pair. The starter's lands above 30, a linear pattern's near 1.",
    },
    captures: [{ load: true }, { tool: 'cpu' }, { tool: 'prof' }, { tool: 'clinic-doctor' }],
    tools: ['cpu', 'prof', 'clinic-doctor'],
    // What the profilers must find in the starter (the extended suite runs
    // each): the pattern's own code, named after its source, under
    // isEmailAddress() (line 23; line 25 where the profile has the line of
    // the call), and Doctor's event-loop delay flag (its headline varies
    // from run to run on this load: "event-loop", "gc", "unknown").
    findings: {
      cpu: /under `RegExp: \^\(\[a-z0-9\]\+\[\._\+-\]\?\)\*[^`]*`, (called from|reached from the function at) labs\/\S+\/app\.js:(23|25) in isEmailAddress\(\)/,
      prof: /Hot spot in your code\n.*`RegExp: \^\(\[a-z0-9\]\+/,
      'clinic-doctor': /✗ flagged {2}event-loop delay: median \d+ ms, max \d{3,} ms/,
    },
    // One chart per gate: one unit on each axis.
    charts: [
      { kind: 'gate-bars', title: 'A crafted address against an ordinary one of the same length', gates: [{ id: 'crafted-ratio', label: 'crafted ÷ ordinary' }] },
      { kind: 'gate-bars', title: 'The other routes during the attack, beyond the control route', gates: [{ id: 'routes-p50', label: 'slowest route, median less the control' }] },
    ],
  },
  __filename,
);
