'use strict';
// Lays out what the storefront's page server reads when it starts, the first
// time the lab runs on a machine (a few seconds, once), so that the workbook
// does not ship megabytes of it:
//
//   node_modules/@shop/toolkit/        the company's shared toolkit package:
//                                      money and text helpers, and clients,
//                                      schemas and locale data for everything
//                                      else the company's services do
//   node_modules/.cache/workbook-lab-14/
//     config/defaults.json             settings every market starts from
//     config/markets/<market>.json     one file per market (MARKETS)
//     templates/<language>/<page>.hbs  every page of the storefront, in every
//                                      language (Handlebars)
//
// Everything is generated from fixed seeds: the same files on every machine.
// A file stamp.json records which version of this file made them; a newer
// version makes them again. `npm ci` clears node_modules, and with it these
// files: the next run makes them again.
//
// You do not need to change this file. app.js requires it first, for the
// folders' paths (CONFIG_DIR, TEMPLATES_DIR); when everything is in place
// that costs a file read.

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');

/** node_modules of the workbook (wherever this file is: labs/, a copy the workbook made, …). */
const NODE_MODULES = path.resolve(require.resolve('handlebars/package.json'), '..', '..');
const TOOLKIT_DIR = path.join(NODE_MODULES, '@shop', 'toolkit');
const CACHE_DIR = path.join(NODE_MODULES, '.cache', 'workbook-lab-14');
const CONFIG_DIR = path.join(CACHE_DIR, 'config');
const TEMPLATES_DIR = path.join(CACHE_DIR, 'templates');

// The version of what this file generates: its own text, so that any change
// to it makes the files again.
const VERSION = crypto.createHash('sha256').update(fs.readFileSync(__filename)).digest('hex').slice(0, 16);

/** The storefront's markets: code, name, locale, language of its pages, currency, VAT, warehouse. */
const MARKETS = [
  ['de', 'Germany', 'de-DE', 'de', 'EUR', 19, 'FRA-1'],
  ['at', 'Austria', 'de-AT', 'de', 'EUR', 20, 'FRA-1'],
  ['ch', 'Switzerland', 'de-CH', 'de', 'CHF', 8.1, 'ZRH-1'],
  ['fr', 'France', 'fr-FR', 'fr', 'EUR', 20, 'PAR-1'],
  ['be', 'Belgium', 'fr-BE', 'fr', 'EUR', 21, 'AMS-1'],
  ['lu', 'Luxembourg', 'fr-LU', 'fr', 'EUR', 17, 'AMS-1'],
  ['nl', 'Netherlands', 'nl-NL', 'nl', 'EUR', 21, 'AMS-1'],
  ['it', 'Italy', 'it-IT', 'it', 'EUR', 22, 'MIL-1'],
  ['es', 'Spain', 'es-ES', 'es', 'EUR', 21, 'MAD-1'],
  ['pt', 'Portugal', 'pt-PT', 'pt', 'EUR', 23, 'MAD-1'],
  ['ie', 'Ireland', 'en-IE', 'en', 'EUR', 23, 'DUB-1'],
  ['gb', 'United Kingdom', 'en-GB', 'en', 'GBP', 20, 'LON-1'],
  ['se', 'Sweden', 'sv-SE', 'sv', 'SEK', 25, 'STO-1'],
  ['no', 'Norway', 'nb-NO', 'nb', 'NOK', 25, 'STO-1'],
  ['dk', 'Denmark', 'da-DK', 'da', 'DKK', 25, 'STO-1'],
  ['fi', 'Finland', 'fi-FI', 'fi', 'EUR', 25.5, 'STO-1'],
  ['pl', 'Poland', 'pl-PL', 'pl', 'PLN', 23, 'WAW-1'],
  ['cz', 'Czechia', 'cs-CZ', 'cs', 'CZK', 21, 'WAW-1'],
  ['sk', 'Slovakia', 'sk-SK', 'sk', 'EUR', 23, 'WAW-1'],
  ['hu', 'Hungary', 'hu-HU', 'hu', 'HUF', 27, 'WAW-1'],
  ['ro', 'Romania', 'ro-RO', 'ro', 'RON', 19, 'WAW-1'],
  ['gr', 'Greece', 'el-GR', 'el', 'EUR', 24, 'MIL-1'],
  ['si', 'Slovenia', 'sl-SI', 'sl', 'EUR', 22, 'MIL-1'],
  ['hr', 'Croatia', 'hr-HR', 'hr', 'EUR', 25, 'MIL-1'],
  ['ee', 'Estonia', 'et-EE', 'et', 'EUR', 22, 'STO-1'],
  ['lv', 'Latvia', 'lv-LV', 'lv', 'EUR', 21, 'STO-1'],
  ['lt', 'Lithuania', 'lt-LT', 'lt', 'EUR', 21, 'WAW-1'],
  ['us', 'United States', 'en-US', 'en', 'USD', 0, 'NYC-1'],
  ['ca', 'Canada', 'en-CA', 'en', 'CAD', 5, 'NYC-1'],
  ['mx', 'Mexico', 'es-MX', 'es', 'MXN', 16, 'NYC-1'],
  ['br', 'Brazil', 'pt-BR', 'pt', 'BRL', 17, 'SAO-1'],
  ['jp', 'Japan', 'ja-JP', 'ja', 'JPY', 10, 'TYO-1'],
  ['au', 'Australia', 'en-AU', 'en', 'AUD', 10, 'SYD-1'],
  ['nz', 'New Zealand', 'en-NZ', 'en', 'NZD', 15, 'SYD-1'],
  ['sg', 'Singapore', 'en-SG', 'en', 'SGD', 9, 'SIN-1'],
  ['tr', 'Türkiye', 'tr-TR', 'tr', 'TRY', 20, 'IST-1'],
  ['il', 'Israel', 'he-IL', 'he', 'ILS', 17, 'IST-1'],
  ['za', 'South Africa', 'en-ZA', 'en', 'ZAR', 15, 'JNB-1'],
  ['in', 'India', 'en-IN', 'en', 'INR', 18, 'SIN-1'],
  ['kr', 'South Korea', 'ko-KR', 'ko', 'KRW', 10, 'TYO-1'],
  ['is', 'Iceland', 'is-IS', 'is', 'ISK', 24, 'STO-1'],
  ['mt', 'Malta', 'en-MT', 'en', 'EUR', 18, 'MIL-1'],
  ['cy', 'Cyprus', 'el-CY', 'el', 'EUR', 19, 'IST-1'],
  ['bg', 'Bulgaria', 'bg-BG', 'bg', 'EUR', 20, 'WAW-1'],
  ['rs', 'Serbia', 'sr-Latn-RS', 'sr', 'RSD', 20, 'WAW-1'],
  ['ua', 'Ukraine', 'uk-UA', 'uk', 'UAH', 20, 'WAW-1'],
  ['ar', 'Argentina', 'es-AR', 'es', 'ARS', 21, 'SAO-1'],
  ['cl', 'Chile', 'es-CL', 'es', 'CLP', 19, 'SAO-1'],
  ['co', 'Colombia', 'es-CO', 'es', 'COP', 19, 'SAO-1'],
  ['pe', 'Peru', 'es-PE', 'es', 'PEN', 18, 'SAO-1'],
  ['ae', 'United Arab Emirates', 'ar-AE', 'ar', 'AED', 5, 'DXB-1'],
  ['sa', 'Saudi Arabia', 'ar-SA', 'ar', 'SAR', 15, 'DXB-1'],
  ['eg', 'Egypt', 'ar-EG', 'ar', 'EGP', 14, 'DXB-1'],
  ['th', 'Thailand', 'th-TH', 'th', 'THB', 7, 'SIN-1'],
  ['my', 'Malaysia', 'ms-MY', 'ms', 'MYR', 10, 'SIN-1'],
  ['id', 'Indonesia', 'id-ID', 'id', 'IDR', 12, 'SIN-1'],
  ['ph', 'Philippines', 'en-PH', 'en', 'PHP', 12, 'SIN-1'],
  ['vn', 'Vietnam', 'vi-VN', 'vi', 'VND', 10, 'SIN-1'],
  ['hk', 'Hong Kong', 'zh-HK', 'zh', 'HKD', 0, 'TYO-1'],
  ['tw', 'Taiwan', 'zh-TW', 'zh', 'TWD', 5, 'TYO-1'],
].map(([code, name, locale, language, currency, vatRate, warehouse]) => ({ code, name, locale, language, currency, vatRate, warehouse }));

const LANGUAGES = [...new Set(MARKETS.map((m) => m.language))].sort();

/** The pages the page server renders (app.js), and the storefront's other pages, which other services render. */
const PAGES = ['product', 'search', 'cart', 'recommendations'];
const OTHER_PAGES = [
  'home', 'category', 'brand', 'sale', 'checkout', 'payment', 'confirmation', 'account', 'orders', 'order', 'returns', 'wishlist',
  'compare', 'reviews', 'stores', 'store', 'help', 'contact', 'login', 'register',
  'gift-cards', 'newsletter', 'delivery', 'size-guide', 'careers', 'press',
];

/** A small deterministic random number generator (mulberry32). */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ka', 'lo', 'ven', 'tra', 'mi', 'sor', 'del', 'an', 'ri', 'qu', 'est', 'bel', 'nor', 'pa', 'zu', 'gen', 'fol', 'dar', 'is', 'ment'];
function wordFrom(rand, parts = 2 + Math.floor(rand() * 3)) {
  let word = '';
  for (let i = 0; i < parts; i++) word += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
  return word;
}
const camel = (words) => words.map((w, i) => (i ? w[0].toUpperCase() + w.slice(1) : w)).join('');
const pascal = (words) => words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');

// ---------------------------------------------------------------------------
// The toolkit package.

/** The two helpers the page server really uses, as the toolkit ships them. */
const MONEY_JS = `'use strict';
// Money: amounts in the smallest unit of their currency (cents), formatted
// for a locale. Intl.NumberFormat objects are costly to make: one per
// locale and currency, kept.
const formats = new Map();
const digits = new Map();

/** Digits after the decimal point of a currency (2 for EUR, 0 for JPY). */
function fractionDigits(currency) {
  if (!digits.has(currency)) digits.set(currency, new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits);
  return digits.get(currency);
}

/** An amount in the smallest unit of its currency, formatted for a locale: 1234, 'EUR', 'de-DE' → '12,34 €'. */
function formatMoney(minorUnits, currency, locale) {
  const key = locale + ' ' + currency;
  let format = formats.get(key);
  if (!format) formats.set(key, (format = new Intl.NumberFormat(locale, { style: 'currency', currency })));
  return format.format(minorUnits / 10 ** fractionDigits(currency));
}

/** A net amount with VAT added, rounded to the smallest unit: 1000, 19 → 1190. */
function withVat(minorUnits, ratePercent) {
  return Math.round(minorUnits * (1 + ratePercent / 100));
}

module.exports = { formatMoney, withVat, fractionDigits };
`;

const TEXT_JS = `'use strict';
// Text helpers shared by the storefront's services.

/** A URL-safe slug: 'Oak Desk Lamp!' → 'oak-desk-lamp'. */
function slugify(text) {
  return String(text)
    .normalize('NFKD')
    .replace(/[\\u0300-\\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** Text cut to at most \`max\` characters, with an ellipsis when cut. */
function truncate(text, max) {
  const s = String(text);
  return s.length <= max ? s : s.slice(0, Math.max(0, max - 1)) + '…';
}

module.exports = { slugify, truncate };
`;

const TOOLKIT_AREAS = [
  // [folder, how many modules, what they are]
  ['clients', 1080, 'client'],
  ['schemas', 1620, 'schema'],
  ['locales', 540, 'locale'],
  ['reports', 405, 'report'],
  ['workflows', 675, 'workflow'],
];

function clientModule(rand, name) {
  const methods = [];
  const count = 14 + Math.floor(rand() * 12);
  for (let i = 0; i < count; i++) {
    const verb = ['get', 'list', 'create', 'update', 'delete', 'search', 'export', 'sync'][Math.floor(rand() * 8)];
    const noun = pascal([wordFrom(rand), wordFrom(rand, 2)]);
    methods.push({
      name: `${verb}${noun}${i}`,
      http: { get: 'GET', list: 'GET', search: 'GET', export: 'GET', create: 'POST', sync: 'POST', update: 'PATCH', delete: 'DELETE' }[verb],
      path: `/v${1 + Math.floor(rand() * 3)}/${wordFrom(rand)}/{id}/${wordFrom(rand)}`,
      query: Array.from({ length: Math.floor(rand() * 5) }, () => camel([wordFrom(rand, 2), wordFrom(rand, 2)])),
      retries: Math.floor(rand() * 4),
      timeoutMs: 500 * (1 + Math.floor(rand() * 10)),
      idempotent: rand() < 0.6,
    });
  }
  const className = `${pascal(name.split('-'))}Client`;
  return `'use strict';
// Client for the ${name} service, generated from its API description.
const { request } = require('../core/request');
const { retrying } = require('../core/retry');

const METHODS = ${JSON.stringify(Object.fromEntries(methods.map((m) => [m.name, m])), null, 2)};

class ${className} {
  constructor(options = {}) {
    this.baseUrl = options.baseUrl || 'https://${name}.internal';
    this.token = options.token || null;
    this.calls = 0;
  }

  describe() {
    return Object.keys(METHODS).map((name) => \`\${METHODS[name].http} \${METHODS[name].path}\`);
  }
}

for (const [name, spec] of Object.entries(METHODS)) {
  ${className}.prototype[name] = function (params = {}) {
    this.calls++;
    const path = spec.path.replace('{id}', encodeURIComponent(params.id ?? ''));
    const query = {};
    for (const key of spec.query) if (params[key] !== undefined) query[key] = params[key];
    const send = () => request(this, { method: spec.http, path, query, timeoutMs: spec.timeoutMs, body: params.body });
    return spec.idempotent ? retrying(send, spec.retries) : send();
  };
}

module.exports = { ${className}, METHODS };
`;
}

function schemaModule(rand, name) {
  const fields = [];
  const count = 10 + Math.floor(rand() * 16);
  for (let i = 0; i < count; i++) {
    const type = ['string', 'number', 'boolean', 'date', 'enum', 'list'][Math.floor(rand() * 6)];
    fields.push({
      name: camel([wordFrom(rand, 2), wordFrom(rand, 2)]) + i,
      type,
      required: rand() < 0.5,
      max: type === 'string' ? 16 + Math.floor(rand() * 240) : type === 'number' ? Math.floor(rand() * 1e6) : undefined,
      values: type === 'enum' ? Array.from({ length: 3 + Math.floor(rand() * 6) }, () => wordFrom(rand)) : undefined,
    });
  }
  const checks = fields
    .map((f) => {
      const at = `value.${f.name}`;
      const missing = f.required ? `if (${at} === undefined) errors.push({ field: '${f.name}', problem: 'required' });` : '';
      let test;
      if (f.type === 'string') test = `typeof ${at} !== 'string' || ${at}.length > ${f.max}`;
      else if (f.type === 'number') test = `typeof ${at} !== 'number' || !Number.isFinite(${at}) || ${at} > ${f.max}`;
      else if (f.type === 'boolean') test = `typeof ${at} !== 'boolean'`;
      else if (f.type === 'date') test = `Number.isNaN(Date.parse(${at}))`;
      else if (f.type === 'enum') test = `!${JSON.stringify(f.values)}.includes(${at})`;
      else test = `!Array.isArray(${at})`;
      return `  ${missing}\n  if (${at} !== undefined && (${test})) errors.push({ field: '${f.name}', problem: 'invalid ${f.type}' });`;
    })
    .join('\n');
  return `'use strict';
// The ${name} record: its fields, and a validator generated from them.
const FIELDS = ${JSON.stringify(fields, null, 2)};

function validate${pascal(name.split('-'))}(value) {
  const errors = [];
  if (value === null || typeof value !== 'object') return [{ field: '', problem: 'not an object' }];
${checks}
  return errors;
}

module.exports = { FIELDS, validate: validate${pascal(name.split('-'))} };
`;
}

/** Real locales, for the toolkit's locale modules' formatters. */
const LOCALE_TAGS = ['en-US', 'en-GB', 'de-DE', 'fr-FR', 'es-ES', 'it-IT', 'nl-NL', 'pt-BR', 'pt-PT', 'sv-SE', 'nb-NO', 'da-DK', 'fi-FI', 'pl-PL', 'cs-CZ',
  'sk-SK', 'hu-HU', 'ro-RO', 'el-GR', 'tr-TR', 'he-IL', 'ar-EG', 'ja-JP', 'ko-KR', 'zh-CN', 'zh-TW', 'th-TH', 'vi-VN', 'id-ID', 'ms-MY', 'hi-IN', 'uk-UA',
  'bg-BG', 'hr-HR', 'sl-SI', 'sr-RS', 'et-EE', 'lv-LV', 'lt-LT', 'is-IS', 'ca-ES', 'eu-ES', 'gl-ES', 'af-ZA', 'sw-KE', 'fil-PH', 'bn-BD', 'ta-IN'];

function localeModule(rand, name) {
  const table = {};
  for (let i = 0; i < 220; i++) table[camel([wordFrom(rand, 2), wordFrom(rand, 2)]) + i] = `${wordFrom(rand)} ${wordFrom(rand)} ${wordFrom(rand)}`;
  const months = Array.from({ length: 12 }, () => wordFrom(rand));
  const days = Array.from({ length: 7 }, () => wordFrom(rand));
  const tag = LOCALE_TAGS[Math.floor(rand() * LOCALE_TAGS.length)];
  return `'use strict';
// Locale data for ${name} (${tag}): the toolkit's messages, month and day
// names, and its formatters, made once when the module loads.
const MESSAGES = Object.freeze(${JSON.stringify(table, null, 2)});
const MONTHS = ${JSON.stringify(months)};
const DAYS = ${JSON.stringify(days)};
const FORMATS = {
  date: new Intl.DateTimeFormat('${tag}', { dateStyle: 'long' }),
  time: new Intl.DateTimeFormat('${tag}', { timeStyle: 'short' }),
  number: new Intl.NumberFormat('${tag}'),
  plural: new Intl.PluralRules('${tag}'),
};
const plural = (n) => FORMATS.plural.select(n);
module.exports = { code: '${name}', locale: '${tag}', MESSAGES, MONTHS, DAYS, FORMATS, plural };
`;
}

function reportModule(rand, name) {
  const columns = Array.from({ length: 12 + Math.floor(rand() * 12) }, (_, i) => ({
    key: camel([wordFrom(rand, 2), wordFrom(rand, 2)]) + i,
    title: `${wordFrom(rand)} ${wordFrom(rand)}`,
    width: 6 + Math.floor(rand() * 30),
    align: rand() < 0.5 ? 'left' : 'right',
  }));
  return `'use strict';
// The ${name} report: its columns, and how to lay out its rows as text or CSV.
const { truncate } = require('../text');
const COLUMNS = ${JSON.stringify(columns, null, 2)};

function toText(rows) {
  const line = (cells) => cells.map((cell, i) => {
    const text = truncate(cell, COLUMNS[i].width);
    return COLUMNS[i].align === 'left' ? text.padEnd(COLUMNS[i].width) : text.padStart(COLUMNS[i].width);
  }).join(' ');
  return [line(COLUMNS.map((c) => c.title)), ...rows.map((row) => line(COLUMNS.map((c) => String(row[c.key] ?? ''))))].join('\\n');
}

function toCsv(rows) {
  const quote = (v) => (/[",\\n]/.test(v) ? '"' + v.replace(/"/g, '""') + '"' : v);
  return [COLUMNS.map((c) => quote(c.title)).join(','), ...rows.map((row) => COLUMNS.map((c) => quote(String(row[c.key] ?? ''))).join(','))].join('\\n');
}

module.exports = { COLUMNS, toText, toCsv };
`;
}

function workflowModule(rand, name, others) {
  const steps = Array.from({ length: 6 + Math.floor(rand() * 10) }, (_, i) => ({
    id: `${wordFrom(rand)}-${i}`,
    after: i > 0 && rand() < 0.7 ? [`step${Math.floor(rand() * i)}`] : [],
    timeoutMs: 1000 * (1 + Math.floor(rand() * 30)),
    compensate: rand() < 0.3,
  }));
  const uses = others.map((o, i) => `const dep${i} = require('../${o}');`).join('\n');
  return `'use strict';
// The ${name} workflow: its steps, in the order they may run.
${uses}
const STEPS = ${JSON.stringify(steps, null, 2)};

class ${pascal(name.split('-'))}Workflow {
  constructor() {
    this.state = new Map(STEPS.map((s) => [s.id, 'pending']));
    this.dependencies = [${others.map((_, i) => `dep${i}`).join(', ')}].length;
  }
  ready() {
    return STEPS.filter((s) => this.state.get(s.id) === 'pending' && s.after.every((a) => this.state.get(a) !== 'pending'));
  }
  complete(id) {
    if (!this.state.has(id)) throw new Error(\`no step \${id} in ${name}\`);
    this.state.set(id, 'done');
  }
}

module.exports = { ${pascal(name.split('-'))}Workflow, STEPS };
`;
}

const CORE_REQUEST = `'use strict';
// What every client's calls go through (a stand-in: the toolkit's real one speaks HTTP).
function request(client, { method, path, query, timeoutMs, body }) {
  return Promise.resolve({ client: client.baseUrl, method, path, query, timeoutMs, body: body ?? null });
}
module.exports = { request };
`;
const CORE_RETRY = `'use strict';
// Retries a call that failed, up to \`retries\` more times.
async function retrying(send, retries) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (err) {
      if (attempt >= retries) throw err;
    }
  }
}
module.exports = { retrying };
`;

/** Every file of the toolkit package: relative path → content. */
function toolkitFiles() {
  const rand = random(14);
  const files = new Map();
  files.set('money.js', MONEY_JS);
  files.set('text.js', TEXT_JS);
  files.set('core/request.js', CORE_REQUEST);
  files.set('core/retry.js', CORE_RETRY);
  const index = { money: './money', text: './text' };
  const made = [];
  for (const [folder, count, kind] of TOOLKIT_AREAS) {
    const names = new Set();
    while (names.size < count) names.add(`${wordFrom(rand)}-${wordFrom(rand, 2)}`);
    for (const name of names) {
      const file = `${folder}/${name}.js`;
      let source;
      if (kind === 'client') source = clientModule(rand, name);
      else if (kind === 'schema') source = schemaModule(rand, name);
      else if (kind === 'locale') source = localeModule(rand, name);
      else if (kind === 'report') source = reportModule(rand, name);
      else source = workflowModule(rand, name, made.length ? [0, 1].map(() => made[Math.floor(rand() * made.length)]) : []);
      files.set(file, source);
      made.push(`${folder}/${name}`);
      index[`${folder}/${name}`] = `./${folder}/${name}`;
    }
  }
  const lines = Object.entries(index).map(([key, file]) => `  ${JSON.stringify(key)}: require(${JSON.stringify(file)}),`);
  files.set(
    'index.js',
    `'use strict';
// @shop/toolkit: everything the company's services share, in one import.
// Each part can also be required on its own: require('@shop/toolkit/money').
const parts = {
${lines.join('\n')}
};
module.exports = { ...parts.money, ...parts.text, parts };
`,
  );
  files.set(
    'package.json',
    JSON.stringify(
      {
        name: '@shop/toolkit',
        version: '7.3.0',
        description: "The company's shared toolkit (generated for lab 14 of the Node.js profiling workbook).",
        main: 'index.js',
        exports: { '.': './index.js', './money': './money.js', './text': './text.js', './*': './*.js' },
        private: true,
      },
      null,
      2,
    ) + '\n',
  );
  return files;
}

// ---------------------------------------------------------------------------
// The configuration.

function configFiles() {
  const rand = random(1414);
  const files = new Map();
  const holidays = [];
  for (let year = 2024; year <= 2033; year++) {
    for (let i = 0; i < 60; i++) holidays.push({ date: `${year}-${String(1 + Math.floor(rand() * 12)).padStart(2, '0')}-${String(1 + Math.floor(rand() * 28)).padStart(2, '0')}`, name: `${wordFrom(rand)} day`, closed: rand() < 0.4 });
  }
  const defaults = {
    shipping: {
      deliveryDays: 3,
      freeFromMinorUnits: 5000,
      zones: [],
      // Every carrier's services, with their rules: the same for every market unless it says otherwise.
      services: Array.from({ length: 2000 }, (_, i) => ({
        id: `${['parcel', 'express', 'freight'][i % 3]}-${i}`,
        carrier: wordFrom(rand),
        maxWeightGrams: 1000 * (1 + Math.floor(rand() * 30)),
        maxSizeCm: [10 + Math.floor(rand() * 100), 10 + Math.floor(rand() * 100), 10 + Math.floor(rand() * 100)],
        cutoff: `${String(10 + Math.floor(rand() * 10)).padStart(2, '0')}:00`,
        days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat'].filter(() => rand() < 0.8),
        tracking: rand() < 0.7,
      })),
    },
    stores: [],
    holidays,
    payments: Object.fromEntries(['card', 'paypal', 'klarna', 'ideal', 'sepa', 'giftcard', 'invoice'].map((p) => [p, { enabled: true, feeMinorUnits: 0, limits: { min: 100, max: 500_000 } }])),
    seo: { titleSuffix: ' | Shop', robots: 'index,follow', sitemapPages: 50_000 },
    tax: { classes: Array.from({ length: 60 }, (_, i) => ({ id: `class-${i}`, rate: Math.floor(rand() * 25), description: `${wordFrom(rand)} ${wordFrom(rand)}` })) },
  };
  files.set('defaults.json', JSON.stringify(defaults, null, 2));
  for (const market of MARKETS) {
    const zones = Array.from({ length: 3000 }, (_, i) => ({
      from: String(i * 80).padStart(5, '0'),
      to: String(i * 80 + 79).padStart(5, '0'),
      deliveryDays: 1 + Math.floor(rand() * 6),
      surchargeMinorUnits: Math.floor(rand() * 800),
      carrier: ['parcel', 'express', 'freight'][Math.floor(rand() * 3)],
    }));
    const stores = Array.from({ length: 200 }, (_, i) => ({
      id: `${market.code}-${i}`,
      name: `${wordFrom(rand)} ${wordFrom(rand)}`,
      address: { street: `${wordFrom(rand)}str. ${1 + Math.floor(rand() * 200)}`, city: wordFrom(rand), postcode: String(Math.floor(rand() * 99_999)).padStart(5, '0') },
      opening: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((day) => ({ day, open: rand() < 0.9 ? '09:00' : null, close: '18:00' })),
      services: ['pickup', 'returns', 'repairs', 'gift-wrapping'].filter(() => rand() < 0.5),
    }));
    const overrides = {
      market: { code: market.code, name: market.name, locale: market.locale, language: market.language, currency: market.currency, vatRate: market.vatRate, warehouse: market.warehouse },
      shipping: { deliveryDays: 1 + Math.floor(rand() * 5), freeFromMinorUnits: 1000 * (3 + Math.floor(rand() * 8)) * (market.currency === 'JPY' || market.currency === 'KRW' || market.currency === 'HUF' ? 100 : 1), zones },
      stores,
      seo: { titleSuffix: ` | Shop ${market.name}` },
    };
    files.set(`markets/${market.code}.json`, JSON.stringify(overrides, null, 2));
  }
  return files;
}

// ---------------------------------------------------------------------------
// The templates.

/** What the page server's own pages say, per language (the rest of each page is the storefront's layout). */
const WORDS = {
  en: ['In stock', 'Out of stock', 'Delivery in', 'days', 'Free delivery on orders over', 'Results for', 'Your cart', 'Total', 'You may also like', 'Add to cart'],
  de: ['Auf Lager', 'Nicht vorrätig', 'Lieferung in', 'Tagen', 'Kostenlose Lieferung ab', 'Ergebnisse für', 'Ihr Warenkorb', 'Summe', 'Das könnte Ihnen auch gefallen', 'In den Warenkorb'],
  fr: ['En stock', 'Épuisé', 'Livraison en', 'jours', 'Livraison gratuite dès', 'Résultats pour', 'Votre panier', 'Total', 'Vous aimerez aussi', 'Ajouter au panier'],
  nl: ['Op voorraad', 'Uitverkocht', 'Levering in', 'dagen', 'Gratis levering vanaf', 'Resultaten voor', 'Je winkelwagen', 'Totaal', 'Misschien ook iets voor jou', 'In winkelwagen'],
  it: ['Disponibile', 'Esaurito', 'Consegna in', 'giorni', 'Consegna gratuita da', 'Risultati per', 'Il tuo carrello', 'Totale', 'Potrebbe piacerti anche', 'Aggiungi al carrello'],
  es: ['En stock', 'Agotado', 'Entrega en', 'días', 'Envío gratis desde', 'Resultados para', 'Tu carrito', 'Total', 'También te puede gustar', 'Añadir al carrito'],
};

function layout(rand, language, title, body, w) {
  const nav = Array.from({ length: 6 }, () => wordFrom(rand));
  const footer = Array.from({ length: 2 }, () => Array.from({ length: 4 }, () => wordFrom(rand)));
  return `<!doctype html>
<html lang="${language}">
<head>
  <meta charset="utf-8">
  <title>${title}{{market.titleSuffix}}</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/assets/storefront.css">
</head>
<body class="market-{{market.code}}">
  <header class="site-header">
    <a class="logo" href="/{{market.code}}/">Shop</a>
    <nav>
${nav.map((n) => `      <a href="c/${n}">${n}</a>`).join('\n')}
    </nav>
    {{#if flags.freeDeliveryBanner}}<p class="banner">${w[4]} {{freeDeliveryFrom}}</p>{{/if}}
  </header>
  <main>
${body}
  </main>
  <footer class="site-footer">
${footer.map((col) => `    <ul>\n${col.map((n) => `      <li><a href="help/${n}">${n}</a></li>`).join('\n')}\n    </ul>`).join('\n')}
    <p>&copy; Shop {{market.name}}</p>
  </footer>
</body>
</html>
`;
}

function pageBody(rand, page, w) {
  const [inStock, outOfStock, deliveryIn, days, , resultsFor, yourCart, total, alsoLike, addToCart] = w;
  if (page === 'product') {
    return `    <article class="product" data-sku="{{product.sku}}">
      <h1>{{product.name}}</h1>
      <p class="brand">{{product.brand}}</p>
      <p class="price">{{price}}</p>
      {{#if inStock}}<p class="stock">${inStock} ({{stock}})</p>{{else}}<p class="stock out">${outOfStock}</p>{{/if}}
      <p class="delivery">${deliveryIn} {{deliveryDays}} ${days}</p>
      <button>${addToCart}</button>
    </article>`;
  }
  if (page === 'search') {
    return `    <h1>${resultsFor} “{{query}}”</h1>
    <ol class="results">
      {{#each results}}<li><a href="/{{../market.code}}/products/{{sku}}/{{slug}}">{{name}}</a> <span class="price">{{price}}</span></li>
      {{/each}}
    </ol>`;
  }
  if (page === 'cart') {
    return `    <h1>${yourCart}</h1>
    <table class="cart">
      {{#each lines}}<tr><td>{{quantity}} × {{name}}</td><td class="price">{{price}}</td></tr>
      {{/each}}
      <tr class="total"><td>${total}</td><td class="price">{{total}}</td></tr>
    </table>`;
  }
  if (page === 'recommendations') {
    return `    <h2>${alsoLike}</h2>
    <ul class="recommendations">
      {{#each products}}<li><a href="/{{../market.code}}/products/{{sku}}/{{slug}}">{{name}}</a> <span class="price">{{price}}</span></li>
      {{/each}}
    </ul>`;
  }
  // A page this server does not render: sections, lists and conditions like the real ones.
  const sections = Array.from({ length: 3 + Math.floor(rand() * 3) }, (_, i) => {
    const field = camel([wordFrom(rand, 2), wordFrom(rand, 2)]);
    return `    <section class="${wordFrom(rand)}">
      <h2>${wordFrom(rand)} ${wordFrom(rand)}</h2>
      {{#if ${field}.visible}}
      <ul>
        {{#each ${field}.items}}<li><a href="${page}/{{id}}">{{title}}</a> <span>{{price}}</span></li>
        {{/each}}
      </ul>
      {{else}}
      <p>${Array.from({ length: 12 }, () => wordFrom(rand)).join(' ')}</p>
      {{/if}}
      <p>${Array.from({ length: 8 + i }, () => wordFrom(rand)).join(' ')}</p>
    </section>`;
  });
  return `    <h1>${wordFrom(rand)} ${wordFrom(rand)}</h1>\n${sections.join('\n')}`;
}

function templateFiles() {
  const rand = random(141414);
  const files = new Map();
  for (const language of LANGUAGES) {
    const w = WORDS[language] || WORDS.en;
    for (const page of [...PAGES, ...OTHER_PAGES]) {
      const title = page === 'product' ? '{{product.name}}' : `${page[0].toUpperCase()}${page.slice(1)}`;
      files.set(`${language}/${page}.hbs`, layout(rand, language, title, pageBody(rand, page, w), w));
    }
  }
  return files;
}

// ---------------------------------------------------------------------------
// Writing it all, once.

function stampOf(dir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'stamp.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

/**
 * Writes `files` into `dir` unless it already holds this version: into a
 * new folder beside it first, renamed into place when complete, so that a
 * process that finds the folder finds it whole (two apps started at once
 * may both write it; the second rename finds the first one's and gives way).
 */
function writeOnce(dir, makeFiles, label, log) {
  if (stampOf(dir) === VERSION) return false;
  log(`Lab 14: writing ${label} (once per machine, a few seconds)…`);
  const staging = `${dir}.${process.pid}-${crypto.randomBytes(4).toString('hex')}.tmp`;
  for (const [file, content] of makeFiles()) {
    const target = path.join(staging, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, content);
  }
  fs.writeFileSync(path.join(staging, 'stamp.json'), JSON.stringify({ version: VERSION }) + '\n');
  if (stampOf(dir) !== VERSION) {
    fs.rmSync(dir, { recursive: true, force: true });
    try {
      fs.mkdirSync(path.dirname(dir), { recursive: true });
      fs.renameSync(staging, dir);
      return true;
    } catch (err) {
      if (stampOf(dir) !== VERSION) throw err; // not another process's finished copy
    }
  }
  fs.rmSync(staging, { recursive: true, force: true });
  return false;
}

/** Makes every generated file that is missing or out of date. */
function prepare({ log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  writeOnce(TOOLKIT_DIR, toolkitFiles, 'the @shop/toolkit package into node_modules', log);
  writeOnce(CONFIG_DIR, configFiles, "the markets' configuration into node_modules/.cache", log);
  writeOnce(TEMPLATES_DIR, templateFiles, 'the storefront templates into node_modules/.cache', log);
}

prepare();

module.exports = { CONFIG_DIR, TEMPLATES_DIR, TOOLKIT_DIR, MARKETS, LANGUAGES, PAGES, OTHER_PAGES, VERSION, prepare };
