'use strict';
// Lab 14's check against fixtures: other real fixes must pass; half-fixes
// that leave one of the start's costs in place, "fixes" that only move the
// start's work onto the first requests, and readiness that lies (listening
// before the routes can answer) must fail. Each is the shipped starter or
// the reference solution with a few lines changed (derivedApp: a change to
// their base that breaks a patch fails loudly). The lab's own suite is
// labs/14-slow-cold-start/check/verdicts.test.js.

const { findLab } = require('../../scripts/lib/labs');
const { materializeShipped } = require('../../scripts/lib/shipped');
const { describeFixtures, expectGates } = require('../../test/helpers/lab-verdicts');
const { derivedApp } = require('../../test/helpers/derived-app');

const lab = findLab('14');

const starter = () => {
  const shipped = materializeShipped(lab);
  if (shipped.error) throw new Error(shipped.error);
  return shipped.app;
};
// The derived apps live in .workbook/derived/: they find the lab's modules by the paths the solution uses.
const LAB_MODULES = [
  ["require('./prepare')", "require('../../labs/14-slow-cold-start/prepare')"],
  ["require('./services')", "require('../../labs/14-slow-cold-start/services')"],
];
const fromStarter = (name, patches) => derivedApp(`14-${name}`, starter(), [...LAB_MODULES, ...patches]);
const fromSolution = (name, patches) => derivedApp(`14-${name}`, lab.solutionApp, patches);

// The lines of the solution the fixtures change.
const EARLY_CONNECT = 'const connecting = Promise.all(SERVICES.map(async (name) => [name, await connect(name)]));';
const AWAIT_CONNECT = '  services = Object.fromEntries(await connecting);';
const TOOLKIT_PARTS = "const { formatMoney, withVat } = require('@shop/toolkit/money');\nconst { slugify } = require('@shop/toolkit/text');";
const LAZY_TEMPLATE = "  if (!templates.has(key)) templates.set(key, Handlebars.compile(fs.readFileSync(path.join(TEMPLATES_DIR, language, `${page}.hbs`), 'utf8')));";
const MARKET_PARAM = '  const settings = marketSettings(code);';
const APP = 'const app = express();';
// The starter's whole loadConfig(), and its template loop, for the half-fixes that keep them.
const STARTER_CONFIG = `function loadConfig() {
  const read = (file) => JSON.parse(fs.readFileSync(path.join(CONFIG_DIR, file), 'utf8'));
  const defaults = read('defaults.json');
  const markets = new Map();
  for (const file of fs.readdirSync(path.join(CONFIG_DIR, 'markets'))) {
    markets.set(path.basename(file, '.json'), deepFreeze(merge(defaults, read(\`markets/\${file}\`))));
  }
  return markets;
}`;
const EAGER_TEMPLATES = `for (const language of fs.readdirSync(TEMPLATES_DIR)) {
  if (!fs.statSync(path.join(TEMPLATES_DIR, language)).isDirectory()) continue;
  for (const file of fs.readdirSync(path.join(TEMPLATES_DIR, language))) {
    template(language, path.basename(file, '.hbs'))({});
  }
}
`;

describe('lab 14 · fixtures', () => {
  describeFixtures(lab, {
    otherFixes: [
      [
        'the connections started together just before listening, after the requires (about one d of waiting)',
        fromSolution('connect-late', [
          [EARLY_CONNECT, ''],
          [AWAIT_CONNECT, '  services = Object.fromEntries(await Promise.all(SERVICES.map(async (name) => [name, await connect(name)])));'],
        ]),
      ],
      [
        'the templates of a language compiled together, the first time a page of that language is asked for',
        fromSolution('templates-per-language', [
          [
            LAZY_TEMPLATE,
            `  if (!templates.has(key)) {
    for (const file of fs.readdirSync(path.join(TEMPLATES_DIR, language))) {
      const source = fs.readFileSync(path.join(TEMPLATES_DIR, language, file), 'utf8');
      const compiled = Handlebars.compile(source);
      compiled({});
      templates.set(\`\${language}/\${path.basename(file, '.hbs')}\`, compiled);
    }
  }`,
          ],
        ]),
      ],
      [
        "each market's file read asynchronously on first use, the promise kept so that requests for a new market read it once",
        fromSolution('async-markets', [
          [
            '/** A market\'s settings, read the first time they are asked for; undefined for an unknown market. */',
            `const pending = new Map(); // code → the promise of its settings
async function loadMarket(code) {
  if (!/^[a-z]{2}$/.test(code)) return undefined;
  if (!pending.has(code)) {
    pending.set(code, (async () => {
      let over;
      try {
        over = JSON.parse(await fs.promises.readFile(path.join(CONFIG_DIR, 'markets', \`\${code}.json\`), 'utf8'));
      } catch (err) {
        if (err.code === 'ENOENT') return undefined;
        throw err;
      }
      defaults ??= JSON.parse(await fs.promises.readFile(path.join(CONFIG_DIR, 'defaults.json'), 'utf8'));
      return deepFreeze(merge(defaults, over));
    })());
  }
  return pending.get(code);
}

/** A market's settings, read the first time they are asked for; undefined for an unknown market. */`,
          ],
          ["app.param('market', (req, res, next, code) => {", "app.param('market', async (req, res, next, code) => {"],
          [MARKET_PARAM, '  const settings = await loadMarket(code);'],
        ]),
      ],
      [
        'the reference with the module compile cache on (module.enableCompileCache(), where Node has it)',
        fromSolution('compile-cache', [[EARLY_CONNECT, `require('node:module').enableCompileCache?.();\n${EARLY_CONNECT}`]]),
      ],
    ],
    cheats: [
      [
        'the starter with the module compile cache on, and nothing else',
        fromStarter('compile-cache-only', [["const fs = require('node:fs');", "require('node:module').enableCompileCache?.();\nconst fs = require('node:fs');"]]),
        (result) => expectGates(result, { 'first-answers': false }),
      ],
      [
        'everything fixed but the connections, still made one after another',
        fromSolution('sequential-connects', [
          [EARLY_CONNECT, ''],
          [AWAIT_CONNECT, '  services = {};\n  for (const name of SERVICES) services[name] = await connect(name);'],
        ]),
        (result) => expectGates(result, { 'start-waits': /one after another/, 'held-requests': true }),
      ],
      [
        'everything fixed but the toolkit, still required whole',
        fromSolution('whole-toolkit', [[TOOLKIT_PARTS, "const { formatMoney, withVat, slugify } = require('@shop/toolkit');"]]),
        (result) => expectGates(result, { 'first-answers': false, 'start-waits': true, 'held-requests': true }),
      ],
      [
        "everything fixed but the configuration, every market's still read at start",
        fromSolution('every-market', [
          [
            '/** A market\'s settings, read the first time they are asked for; undefined for an unknown market. */',
            `${STARTER_CONFIG}
const config = loadConfig();

/** A market's settings, read the first time they are asked for; undefined for an unknown market. */`,
          ],
          [MARKET_PARAM, '  const settings = config.get(code);'],
        ]),
        (result) => expectGates(result, { 'first-answers': false, 'start-waits': true, 'held-requests': true }),
      ],
      [
        'everything fixed but the templates, every one still compiled at start',
        fromSolution('every-template', [['let services; // name → client, once connected', `${EAGER_TEMPLATES}\nlet services; // name → client, once connected`]]),
        (result) => expectGates(result, { 'first-answers': false, 'start-waits': true, 'held-requests': true }),
      ],
      [
        'the reference, but connecting to the services only once it listens, holding requests until they are connected (a readiness that lies)',
        fromSolution('listen-first', [
          [EARLY_CONNECT, ''],
          [APP, `${APP}\nlet ready; // the services, connected after listening\napp.use(async (req, res, next) => {\n  await ready;\n  next();\n});`],
          [AWAIT_CONNECT, ''],
          ["    console.log(`Listening on http://${HOST}:${server.address().port}`);", "    console.log(`Listening on http://${HOST}:${server.address().port}`);\n    ready = Promise.all(SERVICES.map(async (name) => [name, await connect(name)])).then((found) => {\n      services = Object.fromEntries(found);\n    });"],
        ]),
        (result) => expectGates(result, { 'held-requests': /readiness lies/ }),
      ],
      [
        'the reference, but connecting to the services only once it listens, answering 503 until they are connected',
        fromSolution('503-until-ready', [
          [EARLY_CONNECT, ''],
          [APP, `${APP}\napp.use((req, res, next) => (services ? next() : res.status(503).json({ error: 'starting' })));`],
          [AWAIT_CONNECT, ''],
          ["    console.log(`Listening on http://${HOST}:${server.address().port}`);", "    console.log(`Listening on http://${HOST}:${server.address().port}`);\n    Promise.all(SERVICES.map(async (name) => [name, await connect(name)])).then((found) => {\n      services = Object.fromEntries(found);\n    });"],
        ]),
        (result) => expect(result.responses.some((r) => !r.pass && /asked as soon as the app listened/.test(r.name))).toBe(true),
      ],
      [
        "the starter's whole start moved onto the first request (listening at once, everything done once, when a request first arrives)",
        fromStarter('start-on-first-request', [
          ['const config = loadConfig();\nconst templates = loadTemplates();', 'let config;\nlet templates;'],
          ["const { formatMoney, withVat, slugify } = require('@shop/toolkit');", 'let formatMoney, withVat, slugify;'],
          [
            APP,
            `${APP}
let starting;
app.use(async (req, res, next) => {
  starting ??= (async () => {
    ({ formatMoney, withVat, slugify } = require('@shop/toolkit'));
    config = loadConfig();
    templates = loadTemplates();
    for (const name of SERVICES) services[name] = await connect(name);
  })();
  await starting;
  next();
});`,
          ],
          ['  for (const name of SERVICES) services[name] = await connect(name);\n  const server', '  const server'],
        ]),
        (result) => expectGates(result, { 'first-answers': false }),
      ],
    ],
  });
});
