'use strict';
// A tour of the workbook site with screenshots of every page, light and
// dark, wide and phone-sized, and of the Check my fix panel after a pass and
// a fail: to look at as a learner would (.workbook/artifacts/screenshots/;
// WORKBOOK_TOUR=full shoots each page whole, in the light theme).
// What the pages do is asserted by test/site.test.js; this adds that every
// page renders without a console error, request failure or call off the
// machine in each of these looks, that dark mode is dark, and that nothing
// makes a phone-sized page scroll sideways.

const { labs } = require('../../scripts/lib/labs');
const { buildState, staleMessage } = require('../../scripts/lib/site');
const { SCREENSHOTS, browserDescribe, useSiteInBrowser } = require('../helpers/site-browser');

beforeAll(() => {
  // The site as it is built (committed, or rebuilt from its sources by CI
  // before this suite); whether it is current is test/site.test.js's concern.
  const status = buildState();
  if (status.state === 'missing') throw new Error(staleMessage(status));
});

browserDescribe()('a screenshot tour of the site', () => {
  const site = useSiteInBrowser();
  afterAll(() => process.stdout.write(`  [site] Screenshots: ${SCREENSHOTS}\n`));

  const pages = [
    ['home', '/'],
    ['how-checks-measure', '/guide/how-checks-measure'],
    ['trainers', '/guide/trainers'],
    ...labs.map((lab) => [`lab-${lab.slug}`, `/labs/${lab.slug}`]),
  ];

  test.each(pages)('%s (%s), light, dark and phone-sized', async (name, pathname) => {
    // Each look as its first screen; the whole page in the light theme with
    // WORKBOOK_TOUR=full, to look through by eye (a lab's page is 20,000-30,000
    // px tall, and each full shot takes 10-30 s on a 2-vCPU machine: most of
    // the tour's time in CI, where nobody looks). What each look must get
    // right is checked over the whole page below, shot or not.
    for (const [suffix, options] of [
      ['', { fullPage: process.env.WORKBOOK_TOUR === 'full' }],
      ['-dark', { colorScheme: 'dark', fullPage: false }],
      ['-phone', { viewport: { width: 390, height: 844 }, fullPage: false }],
    ]) {
      const page = await site.visit(pathname, { ...options, screenshot: `${name}${suffix}` });
      expect(page.problems).toEqual([]);
      if (options.colorScheme) expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
      // Wide code and tables scroll inside their boxes; the page itself does not.
      if (options.viewport) expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
      await page.close();
    }
  }, 300_000); // with WORKBOOK_TOUR=full, a screenshot of a page up to 30,000 px tall, and two more

  test('the Check my fix panel after a pass and after a fail', async () => {
    const lab = labs[0];
    const page = await site.visit(`/labs/${lab.slug}`);
    for (const [which, verdict] of [
      ['solution', 'pass'],
      ['starter', 'fail'],
    ]) {
      site.checkWhich = which;
      expect(await site.checkMyFix(page)).toBe(verdict);
      await site.shoot(page, `check-${verdict}`);
      await site.shoot(page, `check-${verdict}-panel`, '[data-testid=lab-panel] section');
    }
    expect(page.problems).toEqual([]);
    await page.close();
  }, 200_000);
});
