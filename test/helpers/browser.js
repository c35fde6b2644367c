'use strict';
// Headless Chromium for the site's tests, through playwright-core (no
// browser download: it drives the system's Chromium). Every page opened
// through here records its console errors, uncaught page errors and any
// request that leaves 127.0.0.1, so a test can assert the site stays local.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// Without the networking switches, Chromium phones home (updates, sync,
// safe browsing), which floods a closed network and is not what we test.
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** The Chromium to drive: $CHROME_PATH, else Debian's, else null. */
function findChromium() {
  const candidates = [process.env.CHROME_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean);
  return candidates.find((file) => fs.existsSync(file)) || null;
}

async function launchBrowser(executablePath) {
  const { chromium } = require('playwright-core');
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A new page that records problems in `page.problems`: console errors,
 * uncaught exceptions, failed requests, and requests to any host but
 * `allowedHost`.
 */
async function openPage(context, allowedHost, options = {}) {
  const page = await context.newPage();
  if (options.viewport) await page.setViewportSize(options.viewport);
  page.problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') page.problems.push(`console error: ${msg.text()}`);
  });
  page.on('pageerror', (err) => page.problems.push(`page error: ${err.message}`));
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (!['data:', 'blob:', 'about:'].includes(url.protocol) && url.host !== allowedHost) {
      page.problems.push(`request to another host: ${req.url()}`);
    }
  });
  page.on('requestfailed', (req) => {
    // A check's event stream is aborted on purpose when the page moves on.
    if (!/\/api\/jobs\//.test(req.url())) page.problems.push(`request failed: ${req.url()} (${req.failure()?.errorText})`);
  });
  return page;
}

module.exports = { ARGS, findChromium, launchBrowser, openPage };
