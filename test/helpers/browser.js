'use strict';
// Headless Chromium for the site's tests, through playwright-core (no
// browser download: it drives the system's Chrome, Chromium or Edge). Every page opened
// through here records its console errors, uncaught page errors and any
// request that leaves 127.0.0.1, so a test can assert the site stays local.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { removeTemp } = require('../../scripts/harness/temp');

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

/**
 * Where Chrome, Chromium and Edge install themselves by default, per
 * platform. On Windows they go under Program Files (either one) or, for a
 * per-user install, under %LOCALAPPDATA%.
 */
function browserCandidates(platform, env) {
  if (platform === 'darwin') {
    return [
      '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
      '/Applications/Chromium.app/Contents/MacOS/Chromium',
      '/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
    ];
  }
  if (platform === 'win32') {
    const roots = [env.PROGRAMFILES, env['PROGRAMFILES(X86)'], env.LOCALAPPDATA].filter(Boolean);
    const inEach = ['Google\\Chrome\\Application\\chrome.exe', 'Chromium\\Application\\chrome.exe', 'Microsoft\\Edge\\Application\\msedge.exe'];
    return inEach.flatMap((rel) => roots.map((root) => path.win32.join(root, rel)));
  }
  return ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable', '/usr/bin/microsoft-edge', '/snap/bin/chromium'];
}

/**
 * The Chromium-based browser to drive: $CHROME_PATH, else the first one
 * installed at its default place, else null. `platform`, `env` and `exists`
 * stand in for the machine in tests.
 */
function findChromium({ platform = process.platform, env = process.env, exists = fs.existsSync } = {}) {
  const candidates = [env.CHROME_PATH, ...browserCandidates(platform, env)].filter(Boolean);
  return candidates.find((file) => exists(file)) || null;
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
      removeTemp(userDataDir); // the browser may hold its profile's files a moment after closing
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
