'use strict';
// The workbook site, built from the real files and served by the real
// workbook server: every page renders what the repository holds, makes no
// request off the machine, and Check my fix gives the right verdict for the
// reference solution and for the shipped starter.
//
// The browser part drives the system's Chromium (/usr/bin/chromium or
// $CHROME_PATH). Without one it is skipped with a reason, except in CI.

const fs = require('node:fs');
const path = require('node:path');
const { labs, ROOT } = require('../scripts/lib/labs');
const { materializeShipped, shippedContent } = require('../scripts/lib/shipped');
const { readWalkthrough } = require('../scripts/lib/walkthrough');
const { ensureBuilt, BUILD_DIR } = require('../scripts/lib/site');
const { createWorkbookServer } = require('../scripts/server/workbook-server');
const { CheckQueue } = require('../scripts/server/check-queue');
const { findChromium, launchBrowser, openPage } = require('./helpers/browser');

const SCREENSHOTS = path.join(ROOT, '.workbook', 'artifacts', 'screenshots');
const written = labs.filter((lab) => fs.existsSync(lab.readme));

/** The code blocks of a README whose title is a workbook path: the site must show each. */
function titledBlocks(readme) {
  return readWalkthrough(readme)
    .codeBlocks.map((block) => block.title)
    .filter((title) => /^(labs|solutions|scripts|test)\//.test(title ?? ''));
}

/** A line of a file that is long enough to be unmistakable on a page. */
function telltaleLine(content) {
  return content
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line.length > 30 && !line.startsWith('//') && !line.startsWith("'use strict'"));
}

beforeAll(async () => {
  const started = Date.now();
  const say = (line) => process.stdout.write(`  [site ${Math.round((Date.now() - started) / 1000)} s] ${line}\n`);
  await ensureBuilt({ progress: say });
}, 600_000);

describe('the built site', () => {
  test('has a page for every lab with a walkthrough, showing its imported code', () => {
    for (const lab of written) {
      const html = fs.readFileSync(path.join(BUILD_DIR, 'labs', lab.slug, 'index.html'), 'utf8');
      expect(html).toContain(`Lab ${lab.id}`);
      // The shipped starter and every excerpt, rendered at build time under their paths.
      expect(html).toContain(`labs/${lab.slug}/app.js`);
      for (const title of titledBlocks(lab.readme)) expect(html).toContain(title);
    }
  });

  test('loads nothing from other hosts: no web fonts, CDNs or analytics', () => {
    const offenders = [];
    for (const file of walk(BUILD_DIR).filter((f) => /\.(html|css)$/.test(f))) {
      const text = fs.readFileSync(file, 'utf8');
      // (The minifier drops attribute quotes, so they are optional here.)
      for (const m of text.matchAll(/(?:src|href)=["']?(?:https?:)?\/\/[^"'\s>]+|url\(["']?(?:https?:)?\/\/[^)]+\)|@import\s+["']?(?:https?:)?\/\//g)) {
        // <link rel=canonical> names the page's address; it loads nothing.
        const tag = text.slice(text.lastIndexOf('<', m.index), text.indexOf('>', m.index) + 1);
        // A captured third-party report (Clinic.js Doctor's) links to its
        // documentation: a plain link loads nothing until it is followed.
        const linkInCapturedReport = /^captures\//.test(path.relative(BUILD_DIR, file)) && /^<a\s/i.test(tag);
        if (!/\brel=["']?(canonical|alternate)\b/.test(tag) && !linkInCapturedReport) {
          offenders.push(`${path.relative(BUILD_DIR, file)}: ${m[0]}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  test("the trainers' agenda gives each lab its time from scripts/lib/labs.js", () => {
    const agenda = fs.readFileSync(path.join(ROOT, 'site', 'docs', 'trainers.md'), 'utf8');
    for (const lab of labs) {
      const row = agenda.split('\n').find((line) => line.includes(`Lab ${lab.id} · `));
      expect(row).toBeDefined();
      expect(row).toContain(lab.title);
      expect(row).toMatch(new RegExp(`\\|\\s*${lab.minutes} min\\s*\\|\\s*$`));
    }
    // The start times add up: each block starts when the one before ends.
    const rows = [...agenda.matchAll(/^\|\s*(\d+):(\d\d)\s*\|.*\|\s*(\d+) min\s*\|\s*$/gm)];
    for (let i = 1; i < rows.length; i++) {
      const start = (m) => Number(m[1]) * 60 + Number(m[2]);
      expect(start(rows[i])).toBe(start(rows[i - 1]) + Number(rows[i - 1][3]));
    }
  });
});

const chromium = findChromium();
if (!chromium && !process.env.CI) {
  process.stdout.write('  [site] Browser tests skipped: no Chromium at /usr/bin/chromium or $CHROME_PATH (install it, e.g. `apt-get install chromium`).\n');
}
const inBrowser = chromium || process.env.CI ? describe : describe.skip;

inBrowser('the site in a browser, served by the workbook server', () => {
  // Which app "Check my fix" checks: never the learner's labs/ folder.
  let checkWhich = 'solution';
  const appFor = (lab) => {
    if (checkWhich === 'solution') return lab.solutionApp;
    const shipped = materializeShipped(lab);
    if (shipped.error) throw new Error(shipped.error);
    return shipped.app;
  };
  let server;
  let browser;
  let url;
  let host;

  beforeAll(async () => {
    if (!chromium) throw new Error('CI must run the browser tests, but there is no Chromium at /usr/bin/chromium or $CHROME_PATH.');
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    server = createWorkbookServer({ siteDir: BUILD_DIR, queue: new CheckQueue({ appFor }) });
    url = await server.listen(0);
    host = new URL(url).host;
    browser = await launchBrowser(chromium);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    process.stdout.write(`  [site] Screenshots: ${SCREENSHOTS}\n`);
  });

  async function visit(pathname, { name, colorScheme, viewport, noApi } = {}) {
    const page = await openPage(browser.context, host, { viewport });
    if (colorScheme) await page.emulateMedia({ colorScheme });
    // A statically hosted copy has no API: the server's own 404 page stands in.
    if (noApi) await page.route('**/api/**', (route) => route.fulfill({ status: 404, contentType: 'text/html', body: 'Not found' }));
    await page.goto(url + pathname, { waitUntil: 'networkidle' });
    if (name) await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
    return page;
  }

  /** A screenshot of one part of the page, small enough to look at. */
  async function shootElement(page, selector, name) {
    // The sticky navbar would otherwise be painted over the element.
    await page.addStyleTag({ content: '.navbar { position: static !important; }' });
    await page.locator(selector).first().screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
  }

  test('the home page introduces the workbook and lists every lab with its state', async () => {
    const page = await visit('/', { name: 'home' });
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

  test.each(written.map((lab) => [lab.slug, lab]))('lab page %s: its walkthrough, imported code and files', async (slug, lab) => {
    const page = await visit(`/labs/${slug}`, { name: `lab-${slug}` });
    expect(await page.textContent('h1')).toContain(`Lab ${lab.id}`);
    // Excerpts from the real files, titled with their paths.
    const titles = await page.$$eval('.theme-code-block [class*="codeBlockTitle"]', (els) => els.map((el) => el.textContent));
    for (const title of titledBlocks(lab.readme)) expect(titles).toContain(title);
    // The shipped starter in the files section.
    const starter = await page.textContent('#starter');
    expect(starter).toContain(telltaleLine(shippedContent(lab).content));
    // Hints are closed until the learner opens them.
    const hints = await page.$$eval('details.workbook-hint', (els) => els.map((el) => el.open));
    if (hints.length) expect(hints.every((open) => !open)).toBe(true);
    // The solution hides behind its spoiler.
    expect(await page.isVisible('[data-testid=solution-diff]')).toBe(false);
    await page.click('#solution > summary');
    await page.waitForSelector('[data-testid=solution-diff]');
    expect(await page.textContent('[data-testid=solution-diff]')).toContain(`solutions/${slug}/app.js`);
    expect(page.problems).toEqual([]);
    await page.close();
  });

  test('the guide pages show the thresholds from the check modules', async () => {
    const page = await visit('/guide/how-checks-measure', { name: 'how-checks-measure' });
    const text = await page.textContent('article');
    const { GATES } = require(labs[0].checkModule);
    expect(text).toContain(`below ${GATES.healthP50} × t`);
    expect(page.problems).toEqual([]);
    await page.close();
    const trainers = await visit('/guide/trainers', { name: 'trainers' });
    expect(await trainers.textContent('h1')).toContain('For trainers');
    expect(trainers.problems).toEqual([]);
    await trainers.close();
  });

  test('Check my fix: PASS with figures and a chart for the solution, FAIL for the shipped starter', async () => {
    const lab = labs[0];
    const page = await visit(`/labs/${lab.slug}`);
    await page.click('[data-testid=check-button]');
    await page.waitForSelector('[data-testid=check-log] div');
    await page.waitForSelector('[data-verdict]', { timeout: 90_000 });
    expect(await page.getAttribute('[data-verdict]', 'data-verdict')).toBe('pass');
    expect(await page.textContent('[data-verdict]')).toContain('PASS');
    const gates = await page.$$eval('[data-gate]', (els) => els.map((el) => el.textContent));
    expect(gates.length).toBeGreaterThan(0);
    expect(gates.join('\n')).toMatch(/needs < [\d.]+ ms/);
    await page.waitForSelector('[data-testid=check-result] canvas');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'check-pass.png'), fullPage: true });
    await shootElement(page, '[data-testid=lab-panel] section', 'check-pass-panel');

    checkWhich = 'starter';
    await page.click('[data-testid=check-button]');
    await page.waitForSelector('[data-verdict="fail"]', { timeout: 90_000 });
    expect(await page.textContent('[data-verdict]')).toContain('FAIL');
    expect(await page.textContent('[data-testid=check-result]')).toContain('past the threshold');
    await page.waitForSelector('[data-testid=check-result] canvas');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'check-fail.png'), fullPage: true });
    await shootElement(page, '[data-testid=lab-panel] section', 'check-fail-panel');
    expect(page.problems).toEqual([]);
    await page.close();
  }, 200_000);

  test('served statically (no API), a lab page shows the command to run instead', async () => {
    const lab = written[0];
    const page = await visit(`/labs/${lab.slug}`, { noApi: true });
    await page.waitForSelector('[data-testid=check-cli]');
    expect(await page.textContent('[data-testid=check-cli]')).toContain(`npx workbook check ${lab.id}`);
    expect(await page.isVisible('[data-testid=check-button]')).toBe(false);
    await page.close();
  });

  test('dark mode and a phone-sized screen', async () => {
    const lab = written[0];
    const dark = await visit(`/labs/${lab.slug}`, { name: `lab-${lab.slug}-dark`, colorScheme: 'dark' });
    expect(await dark.getAttribute('html', 'data-theme')).toBe('dark');
    expect(dark.problems).toEqual([]);
    await dark.close();
    const phone = await visit(`/labs/${lab.slug}`, { name: `lab-${lab.slug}-phone`, viewport: { width: 390, height: 844 } });
    // Wide code and tables scroll inside their boxes; the page itself does not.
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(phone.problems).toEqual([]);
    await phone.close();
  });
});

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? walk(full) : [full];
  });
}
