'use strict';
// The workbook site as learners get it: the committed build (site/build,
// made by `npm run site:build`) served by the real workbook server, as
// `npm start` serves it. It must be the build of the sources as they are;
// every page renders what the repository holds, makes no request off the
// machine, and Check my fix gives the right verdict for the reference
// solution and for the shipped starter. (CI also builds the site from its
// sources and runs this file again on that build.)
//
// The browser part drives the system's Chromium (/usr/bin/chromium or
// $CHROME_PATH). Without one it is skipped with a reason, except in CI.

const fs = require('node:fs');
const path = require('node:path');
const { labs, ROOT, checkOf, marginsOf } = require('../scripts/lib/labs');
const { CHART_KINDS } = require('../scripts/checks/define-check');
const { nextStepParts, partsToText } = require('../scripts/lib/wording');
const { planAgenda, clockText } = require('../site/src/lib/agenda');
const { worstMargins, factorText, benchesText } = require('../site/src/lib/margins');
const SITE_KINDS = require('../site/src/components/LabCharts/kinds').CHART_KINDS;
const { shippedContent } = require('../scripts/lib/shipped');
const { readWalkthrough } = require('../scripts/lib/walkthrough');
const { parseDirectives, resolveExcerpt } = require('../scripts/lib/solution-code');
const { BUILD_DIR, SITE_ROOTS, buildState, staleMessage } = require('../scripts/lib/site');
const { browserDescribe, useSiteInBrowser } = require('./helpers/site-browser');
const { runCheck } = require('../scripts/checks/run-check');
const { capturedResults } = require('../scripts/lib/captures');
const { inPool } = require('./helpers/pool');

const written = labs.filter((lab) => fs.existsSync(lab.readme));

/**
 * The code blocks of a README whose title is a workbook path, and the files
 * its solution-code directives show: the site must show each, under its path.
 */
function titledBlocks(readme) {
  const titled = readWalkthrough(readme)
    .codeBlocks.map((block) => block.title)
    .filter((title) => /^(labs|solutions|scripts|test)\//.test(title ?? ''));
  return [...titled, ...directiveExcerpts(readme).map((e) => e.path)];
}

/** The excerpts named by a README's solution-code directives. */
function directiveExcerpts(readme) {
  return parseDirectives(fs.readFileSync(readme, 'utf8')).flatMap((d) => d.excerpts);
}

/** A line of a file that is long enough to be unmistakable on a page. */
function telltaleLine(content) {
  return content
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line.length > 30 && !line.startsWith('//') && !line.startsWith("'use strict'"));
}

/** The text of a built page's article, tags dropped and whitespace collapsed. */
function articleText(route) {
  const html = fs.readFileSync(path.join(BUILD_DIR, ...route.split('/'), 'index.html'), 'utf8');
  const article = /<article[\s\S]*<\/article>/.exec(html)[0];
  return decode(article.replace(/<!--[\s\S]*?-->/g, '').replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');
}

/** Text without whitespace: markup leaves spaces around code and links that the source has not. */
function squash(text) {
  return text.replace(/\s+/g, '');
}

function decode(text) {
  const named = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return text.replace(/&(#x?[0-9a-f]+|\w+);/gi, (m, code) =>
    code[0] === '#' ? String.fromCodePoint(code[1] === 'x' ? parseInt(code.slice(2), 16) : Number(code.slice(1))) : named[code] ?? m,
  );
}

/**
 * The rows of the first table in a built page whose first header is `first`,
 * as arrays of cell texts. (The minifier drops optional end tags such as
 * </td> and </tr>, so rows and cells are split at their start tags.)
 */
function tableRows(route, first) {
  const html = fs.readFileSync(path.join(BUILD_DIR, ...route.split('/'), 'index.html'), 'utf8');
  const table = [...html.matchAll(/<table[\s\S]*?<\/table>/g)].map((m) => m[0]).find((t) => new RegExp(`<th[^>]*>${first}<`).test(t));
  if (!table) throw new Error(`${route} has no table headed "${first}"`);
  const text = (cell) => decode(cell.replace(/<!--[\s\S]*?-->/g, '').replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ').trim();
  return table
    .split(/<tr\b[^>]*>/)
    .slice(1)
    .filter((row) => !/<th\b/.test(row))
    .map((row) => row.split(/<td\b[^>]*>/).slice(1).map(text));
}

/** "below 0.5 × t", "at least 0.6×": a gate as the guide page words it. */
function thresholdWords(gate) {
  const value = gate.threshold.toLocaleString('en-GB');
  const withUnit = gate.per ? `${value} × ${gate.per}` : gate.unit === '×' ? `${value}×` : `${value} ${gate.unit}`;
  return `${gate.op === '<' ? 'below' : 'at least'} ${withUnit}`;
}

describe('one source for every lab: the site names none', () => {
  test('no file of the site names a lab by its slug or branches on its id', () => {
    const offenders = [];
    const skip = new Set(['node_modules', 'build', '.docusaurus', 'captures']);
    const sources = (dir) =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        if (skip.has(entry.name)) return [];
        const full = path.join(dir, entry.name);
        return entry.isDirectory() ? sources(full) : /\.(js|mjs|jsx|md|mdx|css|json)$/.test(entry.name) ? [full] : [];
      });
    for (const file of sources(path.join(ROOT, 'site')).filter((f) => !f.endsWith('package-lock.json'))) {
      const text = fs.readFileSync(file, 'utf8');
      const rel = path.relative(ROOT, file);
      for (const lab of labs) if (text.includes(lab.slug)) offenders.push(`${rel} names ${lab.slug}`);
      for (const m of text.matchAll(/id\s*===?\s*['"]\d\d['"]|\blabs? 0\d\b|lab="\d\d"/gi)) {
        // Comments documenting a component's attributes may show one.
        const line = text.slice(text.lastIndexOf('\n', m.index) + 1, m.index);
        if (!/^\s*(\/\/|\*)/.test(line)) offenders.push(`${rel}: ${m[0]}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  test('every chart kind a check may list is one the site draws', () => {
    expect([...SITE_KINDS].sort()).toEqual([...CHART_KINDS].sort());
    for (const lab of labs) for (const chart of checkOf(lab).charts) expect(SITE_KINDS).toContain(chart.kind);
  });

  test('every lab has its notes for trainers, with a Demo and a Pitfalls section', () => {
    for (const lab of labs) {
      const notes = fs.readFileSync(path.join(lab.checkDir, 'trainers.md'), 'utf8');
      expect(notes).toMatch(/^## Demo$/m);
      expect(notes).toMatch(/^## Pitfalls$/m);
    }
  });
});

describe('the next step after a check, in the words both the terminal and the site use', () => {
  const list = labs.map((l) => ({ id: l.id, slug: l.slug, title: l.title, permalink: `/labs/${l.slug}`, hasReadme: true }));
  const result = (lab, verdict) => ({ lab: lab.slug, verdict, app: `labs/${lab.slug}/app.js`, responses: [] });
  const last = list.at(-1);

  test('after a pass it names the next unfinished lab in order, and an earlier one only when none is left after it, never "back"', () => {
    const unfinished = [list[0].slug, last.slug];
    const text = partsToText(nextStepParts(result(list[1], 'pass'), { labs: list, unfinished }));
    expect(text).toMatch(new RegExp(`go on to lab ${last.id}: npx workbook check ${last.id}$`));
    const earlier = partsToText(nextStepParts(result(last, 'pass'), { labs: list, unfinished: [list[0].slug] }));
    expect(earlier).toMatch(new RegExp(`go on to lab ${list[0].id}, not passed yet: npx workbook check ${list[0].id}$`));
    for (const t of [text, earlier]) expect(t).not.toMatch(/go back/);
  });

  test('the last lab is not "the last lab" while others are unfinished, and all passed says so', () => {
    const open = partsToText(nextStepParts(result(last, 'pass'), { labs: list, unfinished: [list[0].slug] }));
    expect(open).not.toMatch(/last lab/);
    expect(open).toContain(`lab ${list[0].id}`);
    const done = partsToText(nextStepParts(result(last, 'pass'), { labs: list, unfinished: [] }));
    expect(done).toMatch(/every lab of the workbook has passed/);
  });

  test('the site gets the same decision as parts, with links', () => {
    const parts = nextStepParts(result(last, 'pass'), { labs: list, unfinished: [list[0].slug], where: 'site' });
    expect(parts).toContainEqual({ link: list[0].permalink, text: `lab ${list[0].id}: ${list[0].title}` });
    expect(parts).toContainEqual({ link: '#why-it-works', text: '“Why it works”' });
    const fail = nextStepParts(result(last, 'fail'), { labs: list, advice: 'Profile it with `npx workbook profile 01`', where: 'site' });
    expect(fail).toContainEqual({ code: 'npx workbook profile 01' });
    expect(fail).toContainEqual({ code: `labs/${last.slug}/app.js` });
  });
});

describe("the trainers' agenda", () => {
  const check = ({ blocks, total }, list) => {
    expect(blocks[0].kind).toBe('setup');
    expect(blocks.at(-1).kind).toBe('wrap-up');
    expect(blocks.filter((b) => b.kind === 'lab').map((b) => b.lab)).toEqual(list);
    for (let i = 1; i < blocks.length; i++) expect(blocks[i].start).toBe(blocks[i - 1].start + blocks[i - 1].minutes);
    expect(total).toBe(blocks.at(-1).start + blocks.at(-1).minutes);
    // No more than about 100 minutes of labs without a pause.
    let run = 0;
    for (const b of blocks) {
      run = b.kind === 'lab' ? run + b.minutes : b.kind === 'setup' ? 0 : b.kind === 'wrap-up' ? run : 0;
      expect(run).toBeLessThanOrEqual(100);
    }
  };

  test('the labs of labs/labs.json, with breaks, and lunch only in a day past 3.5 h of work', () => {
    const plan = planAgenda(labs);
    check(plan, labs);
    const work = plan.blocks.filter((b) => b.kind !== 'break' && b.kind !== 'lunch').reduce((n, b) => n + b.minutes, 0);
    expect(plan.blocks.some((b) => b.kind === 'lunch')).toBe(work > 210);
  });

  test('eight labs make a full day, with one lunch around midday', () => {
    const eight = Array.from({ length: 8 }, (_, i) => ({ ...labs[i % labs.length], minutes: [40, 45][i % 2] }));
    const plan = planAgenda(eight);
    check(plan, eight);
    const lunches = plan.blocks.filter((b) => b.kind === 'lunch');
    expect(lunches).toHaveLength(1);
    expect(lunches[0].start).toBeGreaterThanOrEqual(150);
    expect(lunches[0].start).toBeLessThanOrEqual(240);
    expect(plan.total).toBeLessThanOrEqual(8.5 * 60);
  });
});

beforeAll(() => {
  // Without a build there is nothing to test; a stale one is tested all the same (and fails its own test below).
  const status = buildState();
  if (status.state === 'missing') throw new Error(staleMessage(status));
});

describe('the built site', () => {
  test(`is the build of the sources as they are (else: rebuild it with \`npm run site:build\`)`, () => {
    const status = buildState();
    if (status.state !== 'current') throw new Error(staleMessage(status, { max: 20 }));
  });

  test('has a page for every lab with a walkthrough, showing its imported code', () => {
    for (const lab of written) {
      const html = fs.readFileSync(path.join(BUILD_DIR, 'labs', lab.slug, 'index.html'), 'utf8');
      expect(html).toContain(`Lab ${lab.id}`);
      // The shipped starter and every excerpt, rendered at build time under their paths.
      expect(html).toContain(`labs/${lab.slug}/app.js`);
      for (const title of titledBlocks(lab.readme)) expect(html).toContain(title);
      // The reference fix, absent from the README as written, is folded into the page.
      const excerpts = directiveExcerpts(lab.readme);
      if (excerpts.length) {
        expect(html).toMatch(/<details[^>]*workbook-solution-code/);
        for (const excerpt of excerpts) {
          const code = resolveExcerpt(ROOT, excerpt).lines.map((l) => l.trim()).find((l) => l.length > 20);
          if (code) expect(squash(decode(articleText(`labs/${lab.slug}`)))).toContain(squash(code));
        }
      }
    }
  });

  test("a captured check the machine was too noisy to judge is not drawn as a failed gate", () => {
    for (const lab of written) {
      const results = capturedResults(lab);
      if (!results) continue;
      const html = fs.readFileSync(path.join(BUILD_DIR, 'labs', lab.slug, 'index.html'), 'utf8');
      const noisyPast = Object.values(results).filter((r) => r.verdict === 'noisy').flatMap((r) => r.gates.filter((g) => !g.pass));
      // One "?" cell per figure past its threshold in a noisy run, and no more.
      expect((html.match(/data-gate-cell="?noisy/g) || []).length).toBe(noisyPast.length);
    }
  });

  test('loads nothing from other hosts: no web fonts, CDNs or analytics', () => {
    const offenders = [];
    // Everything the server serves: the build, and site/static behind it (the captures).
    for (const [root, file] of SITE_ROOTS.flatMap((root) => walk(root).map((f) => [root, f])).filter(([, f]) => /\.(html|css)$/.test(f))) {
      const text = fs.readFileSync(file, 'utf8');
      // (The minifier drops attribute quotes, so they are optional here.)
      for (const m of text.matchAll(/(?:src|href)=["']?(?:https?:)?\/\/[^"'\s>]+|url\(["']?(?:https?:)?\/\/[^)]+\)|@import\s+["']?(?:https?:)?\/\//g)) {
        // <link rel=canonical> names the page's address; it loads nothing.
        const tag = text.slice(text.lastIndexOf('<', m.index), text.indexOf('>', m.index) + 1);
        // A captured third-party report (Clinic.js Doctor's) links to its
        // documentation: a plain link loads nothing until it is followed.
        const linkInCapturedReport = /^captures\//.test(path.relative(root, file).split(path.sep).join('/')) && /^<a\s/i.test(tag);
        if (!/\brel=["']?(canonical|alternate)\b/.test(tag) && !linkInCapturedReport) {
          offenders.push(`${path.relative(ROOT, file)}: ${m[0]}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  test("the trainers' page: the agenda from labs/labs.json, and each lab's demo and pitfalls", () => {
    const rows = tableRows('guide/trainers', 'Start');
    for (const lab of labs) {
      const row = rows.find((cells) => cells[1] === `Lab ${lab.id} · ${lab.title}`);
      expect(row).toBeDefined();
      expect(row[2]).toBe(`${lab.minutes} min`);
    }
    // The start times add up: each block starts when the one before ends.
    const minutes = (clock) => Number(clock.split(':')[0]) * 60 + Number(clock.split(':')[1]);
    for (let i = 1; i < rows.length; i++) expect(minutes(rows[i][0])).toBe(minutes(rows[i - 1][0]) + parseInt(rows[i - 1][2], 10));
    expect(rows.map((r) => r[0])).toEqual(planAgenda(labs).blocks.map((b) => clockText(b.start)));

    const text = articleText('guide/trainers');
    for (const lab of labs) {
      const notes = fs.readFileSync(path.join(lab.checkDir, 'trainers.md'), 'utf8');
      // The first words of each section, as the page shows them.
      for (const heading of ['Demo', 'Pitfalls']) {
        const body = notes.split(`## ${heading}`)[1].split(/^## /m)[0];
        const words = body.replace(/[`*]/g, '').replace(/^\s*-\s*/, '').trim().split(/\s+/).slice(0, 6).join(' ');
        expect(squash(text)).toContain(squash(words));
      }
    }
    expect(text).not.toMatch(/--tool doctor\b/);
  });

  test('"How the checks measure": every gate with its threshold, every calibration and noise rule, the measured margins', () => {
    const gateRows = tableRows('guide/how-checks-measure', 'Lab').filter((cells) => cells.length >= 2);
    const text = articleText('guide/how-checks-measure');
    for (const lab of labs) {
      const check = checkOf(lab);
      for (const [id, gate] of Object.entries(check.gates)) {
        const row = gateRows.find((cells) => cells.some((c) => c.startsWith(gate.label)));
        expect(row).toBeDefined();
        expect(row.join(' ')).toContain(thresholdWords({ id, ...gate }));
      }
      const plain = (markdown) => squash(markdown.replace(/[`*]/g, ''));
      if (check.explain.calibration) expect(squash(text)).toContain(plain(check.explain.calibration));
      expect(squash(text)).toContain(plain(check.explain.noise));
      // The worst recorded margin of each gate and side, as the table shows it.
      for (const row of worstMargins(Object.keys(check.gates).map((id) => ({ id })), marginsOf(lab))) {
        for (const side of ['starter', 'solution']) {
          if (!row[side] || (side === 'starter' && !check.starterFails.includes(row.id))) continue;
          // A run on the wrong side of its threshold (a starter inside it) is shown as such, and marked.
          const rightWhere = side === 'starter' ? 'past' : 'inside';
          const where = row[side].right ? rightWhere : rightWhere === 'past' ? 'inside' : 'past';
          expect(text).toContain(`${factorText(row[side].margin)} ${where}`);
        }
      }
    }
    // Each lab's benches, with the machine each ran on.
    for (const lab of labs) {
      for (const sentence of benchesText(marginsOf(lab))) expect(squash(text)).toContain(squash(sentence));
    }
    // No claim the margins do not back.
    expect(text).not.toMatch(/at least about 3× away/);
  });
});

const inBrowser = browserDescribe();

// What the pages do. Screenshots of every page, to look at, are taken by
// the extended suite's tour (test/extended/site-tour.test.js), which also
// checks dark mode and a phone-sized screen on every page: a full-page
// screenshot costs about a second, and nobody looks at them in a self-check.
/**
 * Check my fix runs the real check on the solution. The starter's verdict,
 * which lab 01's verdict suite has just measured for real, is replayed from
 * the lab's captured result (site/static/captures/, `npm run capture`)
 * through the same server, job queue and page: what this test judges is how
 * the page shows a failed check, and it saves a full check's time. (The
 * extended suite's tour runs both for real.)
 */
async function runCheckOrReplayStarter(lab, { which, onProgress, ...options }) {
  if (which !== 'starter') return runCheck(lab, { onProgress, ...options });
  const captured = capturedResults(lab)?.starter;
  if (!captured) throw new Error(`lab ${lab.id} has no captured starter result: npm run capture -- --lab ${lab.id}`);
  onProgress({ text: "Replaying the shipped starter's captured check", elapsedMs: 0 });
  await new Promise((resolve) => setTimeout(resolve, 200));
  return { ...captured, startedAt: new Date().toISOString() };
}

inBrowser('the site in a browser, served by the workbook server', () => {
  const site = useSiteInBrowser({ check: runCheckOrReplayStarter });

  test('the home page introduces the workbook and lists every lab with its state', async () => {
    const page = await site.visit('/', { ready: 'text=Your progress' });
    expect(await page.textContent('h1')).toContain('Node.js profiling workbook');
    const table = await page.textContent('table');
    for (const lab of labs) {
      expect(table).toContain(lab.title);
      expect(table).toContain(`${lab.minutes} min`);
    }
    await page.waitForSelector('text=Your progress');
    expect(page.problems).toEqual([]);
    await page.close();
  });

  // Each lab page mostly waits (hydration, the API), so they are visited two
  // at a time, once, and each lab's test reads what its visit found. A
  // learner's `npm test` visits the first lab's page and those of the labs
  // they have started (2-3 s a page; what every page holds is read from the
  // build above); with WORKBOOK_VERIFY_ALL=1 (CI), every lab's.
  const { editedFiles } = require('./helpers/lab-suite');
  const visited = process.env.WORKBOOK_VERIFY_ALL === '1' ? written : written.filter((lab, i) => i === 0 || editedFiles(lab).length > 0);
  let labVisits = null;
  const labPage = async (lab) => {
    labVisits ??= inPool(visited, 2, async (one) => {
      // The Check my fix button appears once the page is hydrated and the API answered.
      const page = await site.visit(`/labs/${one.slug}`, { ready: '[data-testid=check-button]' });
      try {
        const seen = {
          h1: await page.textContent('h1'),
          titles: await page.$$eval('.theme-code-block [class*="codeBlockTitle"]', (els) => els.map((el) => el.textContent)),
          starter: await page.textContent('#starter'),
          hints: await page.$$eval('details.workbook-hint', (els) => els.map((el) => el.open)),
          solutionVisibleBefore: await page.isVisible('[data-testid=solution-diff]'),
        };
        // The captures above the files load after the page: once they are
        // in, the spoiler stays where it is while it is clicked.
        await page.waitForFunction(() => !document.querySelector('[aria-busy=true]'));
        await page.click('#solution > summary');
        await page.waitForSelector('[data-testid=solution-diff]', { timeout: 15_000 }).catch(async (err) => {
          // Say what the page was like, so that a miss can be told apart: a
          // click that did not open the spoiler, or one that opened it empty.
          const state = await page.evaluate(() => {
            const details = document.querySelector('#solution');
            return { url: location.pathname, open: details?.open, children: details?.children.length };
          });
          throw new Error(`${err.message}\npage after the click: ${JSON.stringify(state)}; problems: ${JSON.stringify(page.problems)}`);
        });
        seen.solution = await page.textContent('[data-testid=solution-diff]');
        seen.problems = page.problems;
        return seen;
      } finally {
        await page.close();
      }
    });
    const seen = (await labVisits)[visited.indexOf(lab)];
    if (seen instanceof Error) throw seen;
    return seen;
  };

  test.each(visited.map((lab) => [lab.slug, lab]))('lab page %s: its walkthrough, imported code and files', async (slug, lab) => {
    const seen = await labPage(lab);
    expect(seen.h1).toContain(`Lab ${lab.id}`);
    // Excerpts from the real files, titled with their paths.
    for (const title of titledBlocks(lab.readme)) expect(seen.titles).toContain(title);
    // The shipped starter in the files section.
    expect(seen.starter).toContain(telltaleLine(shippedContent(lab).content));
    // Hints are closed until the learner opens them.
    if (seen.hints.length) expect(seen.hints.every((open) => !open)).toBe(true);
    // The solution hides behind its spoiler.
    expect(seen.solutionVisibleBefore).toBe(false);
    expect(seen.solution).toContain(`solutions/${slug}/app.js`);
    expect(seen.problems).toEqual([]);
  });

  test('the guide pages show the thresholds from the check modules', async () => {
    const page = await site.visit('/guide/how-checks-measure', { ready: 'article' });
    const text = await page.textContent('article');
    const [id, gate] = Object.entries(checkOf(labs[0]).gates)[0];
    expect(text).toContain(thresholdWords({ id, ...gate }));
    expect(page.problems).toEqual([]);
    await page.close();
    const trainers = await site.visit('/guide/trainers', { ready: 'article' });
    expect(await trainers.textContent('h1')).toContain('For trainers');
    expect(trainers.problems).toEqual([]);
    await trainers.close();
  });

  test("Check my fix: PASS with figures and a chart for the solution (measured), FAIL for the shipped starter (its captured result)", async () => {
    // Any lab will do: the one whose captured check of the solution was quickest.
    const duration = (l) => capturedResults(l)?.solution?.durationMs ?? Infinity;
    const lab = [...written].sort((a, b) => duration(a) - duration(b))[0];
    const page = await site.visit(`/labs/${lab.slug}`, { ready: '[data-testid=check-button]' });
    site.checkWhich = 'solution';
    expect(await site.checkMyFix(page)).toBe('pass');
    expect(await page.textContent('[data-verdict]')).toContain('PASS');
    // One row per gate of the lab's check: its label, figure and threshold.
    const gates = Object.fromEntries(await page.$$eval('[data-gate]', (els) => els.map((el) => [el.dataset.gate, el.textContent])));
    expect(Object.keys(gates).sort()).toEqual(Object.keys(checkOf(lab).gates).sort());
    for (const [id, gate] of Object.entries(checkOf(lab).gates)) {
      expect(gates[id]).toContain(gate.label);
      expect(gates[id]).toMatch(/needs [<≥]/);
    }

    site.checkWhich = 'starter';
    expect(await site.checkMyFix(page)).toBe('fail');
    expect(await page.textContent('[data-verdict]')).toContain('FAIL');
    expect(await page.textContent('[data-testid=check-result]')).toContain('past the threshold');
    expect(page.problems).toEqual([]);
    await page.close();
  }, 200_000);

  test('served statically (no API), a lab page shows the command to run instead', async () => {
    const lab = written[0];
    const page = await site.visit(`/labs/${lab.slug}`, { noApi: true, ready: '[data-testid=check-cli]' });
    expect(await page.textContent('[data-testid=check-cli]')).toContain(`npx workbook check ${lab.id}`);
    expect(await page.isVisible('[data-testid=check-button]')).toBe(false);
    await page.close();
  });
});

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? walk(full) : [full];
  });
}
