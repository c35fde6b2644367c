'use strict';
// Lab 07's check against fixtures: other real fixes must pass; "fixes" that
// keep two rounds of calls, drop a service, answer from a cache, answer
// before the calls are made, or break when a service fails must fail. Each
// is the reference solution with a few lines changed (derivedApp: a change
// to the solution that breaks a patch fails loudly). The lab's own suite is
// labs/07-sequential-awaits/check/verdicts.test.js.

const { findLab } = require('../../scripts/lib/labs');
const { describeFixtures } = require('../../test/helpers/lab-verdicts');
const { derivedApp } = require('../../test/helpers/derived-app');

const lab = findLab('07');
const wrong = (result) => result.responses.filter((r) => !r.pass);
const wrongNamed = (result, pattern) => wrong(result).find((r) => pattern.test(r.name));

// The lines of the reference solution the fixtures change.
const GATHER = `  const [profile, orders, recommendations] = await Promise.all([
    part('profile', userId),
    part('orders', userId),
    part('recommendations', userId),
  ]);`;
const ANSWER = `  res.json(missing.length ? { ...dashboard, missing } : dashboard);`;
const PART = `async function part(name, userId) {
  try {
    return await getJson(\`\${services[name]}/users/\${userId}\`);
  } catch (err) {
    console.error(\`\${name} for user \${userId}: \${err.message}\`);
    return null;
  }
}`;
const derived = (name, patches) => derivedApp(`07-${name}`, lab.solutionApp, patches);

describe('lab 07 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      [
        'Promise.allSettled over the plain calls, each with its own timeout',
        derived('allsettled', [
          [GATHER, `  const settled = await Promise.allSettled(['profile', 'orders', 'recommendations'].map((name) => getJson(\`\${services[name]}/users/\${userId}\`)));
  const [profile, orders, recommendations] = settled.map((result) => (result.status === 'fulfilled' ? result.value : null));`],
        ]),
      ],
      [
        'starting the three calls first, then awaiting each',
        derived('start-then-await', [
          [GATHER, `  const profileCall = part('profile', userId);
  const ordersCall = part('orders', userId);
  const recommendationsCall = part('recommendations', userId);
  const profile = await profileCall;
  const orders = await ordersCall;
  const recommendations = await recommendationsCall;`],
        ]),
      ],
      [
        'always naming the missing parts, an empty list when none failed',
        derived('always-missing', [[ANSWER, '  res.json({ ...dashboard, missing });']]),
      ],
    ],
    cheats: [
      [
        'two rounds: profile and orders together, then recommendations',
        derived('two-rounds', [
          [GATHER, `  const [profile, orders] = await Promise.all([part('profile', userId), part('orders', userId)]);
  const recommendations = await part('recommendations', userId);`],
        ]),
        (result) => {
          expect(wrong(result)).toEqual([]);
          expect(result.gates[0].pass).toBe(false);
          // Two rounds can never take less than two round trips.
          expect(result.gates[0].value).toBeGreaterThanOrEqual(2 * result.series.d);
        },
      ],
      [
        'leaving out the slowest service (recommendations)',
        derived('drops-recommendations', [
          [GATHER, `  const [profile, orders] = await Promise.all([part('profile', userId), part('orders', userId)]);
  const recommendations = [];`],
        ]),
        (result) => {
          expect(wrongNamed(result, /^GET \/dashboard\/1$/).actual).toMatch(/^recommendations not what the service answered/);
          expect(wrongNamed(result, /^GET \/dashboard\/1 called each service once$/).actual).toBe('profile 1, orders 1, recommendations 0');
        },
      ],
      [
        "a cache of each user's dashboard",
        derived('cached', [
          [GATHER, `  if (cache.has(userId)) return res.json(cache.get(userId));
${GATHER}`],
          [ANSWER, `  const body = missing.length ? { ...dashboard, missing } : dashboard;
  cache.set(userId, body);
  res.json(body);`],
          ['const app = express();', 'const app = express();\nconst cache = new Map();'],
        ]),
        (result) => {
          expect(wrongNamed(result, / dashboards under load$/).actual).toMatch(/calls: profile \d+/);
          expect(wrongNamed(result, /^GET \/dashboard\/1 after the data changed$/).actual).toMatch(/served from a cache\?/);
        },
      ],
      [
        'the previous dashboard at once, refreshed in the background (stale while revalidate)',
        derived('stale-while-revalidate', [
          [GATHER, `  const previous = last.get(userId);
  const fresh = Promise.all([part('profile', userId), part('orders', userId), part('recommendations', userId)]).then(([profile, orders, recommendations]) => {
    last.set(userId, { profile, orders, recommendations });
    return { profile, orders, recommendations };
  });
  if (previous) return res.json(previous);
  const { profile, orders, recommendations } = await fresh;`],
          ['const app = express();', 'const app = express();\nconst last = new Map();'],
        ]),
        (result) => expect(wrongNamed(result, /after the data changed$/).actual).toMatch(/served from a cache\?/),
      ],
      [
        'placeholders at once, the calls made after the response',
        derived('placeholders', [
          [GATHER, `  res.json({ profile: { id: Number(userId) }, orders: [], recommendations: [] });
  await Promise.all([part('profile', userId), part('orders', userId), part('recommendations', userId)]);
  return;
  const [profile, orders, recommendations] = [];`],
        ]),
        (result) => expect(wrongNamed(result, /^GET \/dashboard\/7$/).actual).toMatch(/not what the service answered/),
      ],
      [
        'Promise.all over calls that throw: one failed service fails the whole dashboard',
        derived('all-or-nothing', [
          [GATHER, `  const [profile, orders, recommendations] = await Promise.all(['profile', 'orders', 'recommendations'].map((name) => getJson(\`\${services[name]}/users/\${userId}\`)));`],
        ]),
        (result) => expect(wrongNamed(result, /while recommendations answers 503$/).actual).toMatch(/^status 500/),
      ],
      [
        'no timeout on the calls: a service that never answers holds the dashboard',
        derived('no-timeout', [["  const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });", '  const response = await fetch(url);']]),
        (result) => expect(wrongNamed(result, /while orders never answers$/).actual).toMatch(/did not answer|no answer within|past DOWNSTREAM_TIMEOUT_MS/),
      ],
      [
        'a timeout of its own (2 s) instead of DOWNSTREAM_TIMEOUT_MS',
        derived('own-timeout', [['const TIMEOUT_MS = Number(process.env.DOWNSTREAM_TIMEOUT_MS ?? 1000);', 'const TIMEOUT_MS = 2000;']]),
        (result) => expect(wrongNamed(result, /while orders never answers$/).actual).toMatch(/past DOWNSTREAM_TIMEOUT_MS/),
      ],
      [
        'a part that failed sent as an empty list instead of null',
        derived('empty-not-null', [[PART, PART.replace('    return null;', "    return name === 'profile' ? null : [];")]]),
        (result) => expect(wrongNamed(result, /while recommendations answers 503$/)).toBeDefined(),
      ],
    ],
  });
});
