'use strict';
// The workbook site in a headless browser, served by the real workbook
// server as `npm start` serves it (site/build, then site/static), for the
// site's tests: test/site.test.js (what the pages do) and
// test/extended/site-tour.test.js (screenshots of every page, to look at as
// a learner would).

const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('../../scripts/lib/labs');
const { materializeShipped } = require('../../scripts/lib/shipped');
const { SITE_ROOTS } = require('../../scripts/lib/site');
const { createWorkbookServer } = require('../../scripts/server/workbook-server');
const { CheckQueue } = require('../../scripts/server/check-queue');
const { findChromium, launchBrowser, openPage } = require('./browser');

const SCREENSHOTS = path.join(ROOT, '.workbook', 'artifacts', 'screenshots');

const chromium = findChromium();

/**
 * `describe` when a browser can run (or CI, which must have one), else
 * `describe.skip` with one line saying why.
 */
function browserDescribe() {
  if (!chromium && !process.env.CI) {
    process.stdout.write('  [site] Browser tests skipped: no Chromium at /usr/bin/chromium or $CHROME_PATH (install it, e.g. `apt-get install chromium`).\n');
  }
  return chromium || process.env.CI ? describe : describe.skip;
}

/**
 * Registers beforeAll/afterAll that start the server and the browser, and
 * returns what a test uses. "Check my fix" checks `site.checkWhich`'s app
 * ('solution' or 'starter'), never the learner's labs/ folder; `check`, if
 * given, stands in for the lab's check (it gets `which` among its options).
 */
function useSiteInBrowser({ check } = {}) {
  const site = { checkWhich: 'solution' };
  const appFor = (lab) => {
    if (site.checkWhich === 'solution') return lab.solutionApp;
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
    server = createWorkbookServer({ siteDir: SITE_ROOTS, queue: new CheckQueue({ appFor, ...(check ? { check: (lab, options) => check(lab, { ...options, which: site.checkWhich }) } : {}) }) });
    url = await server.listen(0);
    host = new URL(url).host;
    browser = await launchBrowser(chromium);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /**
   * Opens a page. With `ready`, a selector that only appears once the page
   * has come alive (hydrated, its API answered), it waits for that; without,
   * for the network to settle (half a second of quiet). `screenshot` names a
   * full-page screenshot to take.
   */
  site.visit = async (pathname, { ready, screenshot, fullPage = true, colorScheme, viewport, noApi } = {}) => {
    const page = await openPage(browser.context, host, { viewport });
    if (colorScheme) await page.emulateMedia({ colorScheme });
    // A statically hosted copy has no API: the server's own 404 page stands in.
    if (noApi) await page.route('**/api/**', (route) => route.fulfill({ status: 404, contentType: 'text/html', body: 'Not found' }));
    await page.goto(url + pathname, { waitUntil: ready ? 'load' : 'networkidle' });
    if (ready) await page.waitForSelector(ready);
    if (screenshot) await site.shoot(page, screenshot, undefined, { fullPage });
    return page;
  };

  /** A full-page screenshot, or one of the first element matching `selector`. */
  site.shoot = async (page, name, selector, { fullPage = true } = {}) => {
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    const file = path.join(SCREENSHOTS, `${name}.png`);
    // A lab's page is 20,000-30,000 px tall: a full-page screenshot of it
    // took over Playwright's default 30 s on a 2-vCPU machine (lab 06, in CI).
    if (!selector) return page.screenshot({ path: file, fullPage, timeout: 120_000 });
    // The sticky navbar would otherwise be painted over the element.
    await page.addStyleTag({ content: '.navbar { position: static !important; }' });
    return page.locator(selector).first().screenshot({ path: file });
  };

  /**
   * Runs Check my fix on an open lab page and returns the verdict it shows
   * ('pass', 'fail' or 'noisy'), once its chart is drawn. (A new run
   * clears the last result, so the verdict found is this run's.)
   */
  site.checkMyFix = async (page) => {
    await page.click('[data-testid=check-button]');
    await page.waitForSelector('[data-testid=check-log] div');
    await page.waitForSelector('[data-verdict]', { timeout: 90_000 });
    const verdict = await page.getAttribute('[data-verdict]', 'data-verdict');
    if (verdict !== 'noisy') await page.waitForSelector('[data-testid=check-result] canvas');
    return verdict;
  };

  return site;
}

module.exports = { SCREENSHOTS, browserDescribe, useSiteInBrowser };
