'use strict';
// How learners get the site without its build tools: the build is committed
// (site/build, by `npm run site:build`), stamped with a hash of each input,
// and served with site/static behind it. test/site.test.js tests the build
// itself; this file tests the machinery around it.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { execFileSync } = require('node:child_process');
const { ROOT, labs } = require('../scripts/lib/labs');
const { labFiles } = require('../scripts/lib/shipped');
const { readWalkthrough } = require('../scripts/lib/walkthrough');
const { parseDirectives } = require('../scripts/lib/solution-code');
const { BUILD_DIR, STATIC_DIR, SITE_ROOTS, STAMP_NAME, BUILD_COMMAND, buildInputs, buildState, fileHash, libModulesOfSite, staleMessage } = require('../scripts/lib/site');
const { createWorkbookServer } = require('../scripts/server/workbook-server');
const { compareBuilds, normalisePage } = require('../scripts/lib/site-compare');

const rootPackage = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' });

describe('what the build is made from', () => {
  const inputs = buildInputs();

  test("every walkthrough, check folder file, solution, the site's sources and each check's definition", () => {
    for (const lab of labs) {
      expect(inputs).toHaveProperty([`labs/${lab.slug}/README.md`]);
      expect(inputs).toHaveProperty([`labs/${lab.slug}/check/index.js`]);
      expect(inputs).toHaveProperty([`solutions/${lab.slug}/app.js`]);
      expect(inputs).toHaveProperty([`[check definition of ${lab.slug}]`]);
    }
    for (const file of ['site/docusaurus.config.js', 'site/package-lock.json', 'site/static/captures/index.json', 'scripts/lib/shipped-starters.json', 'scripts/lib/wording.js']) {
      expect(inputs).toHaveProperty([file]);
    }
  });

  test('the scripts/lib modules the site loads, found in its code: imported by a page, joined into a path by a plugin, and what those read', () => {
    const modules = libModulesOfSite();
    expect(modules).toEqual(expect.arrayContaining(['scripts/lib/wording.js', 'scripts/lib/labs.js', 'scripts/lib/shipped.js', 'scripts/lib/shipped-starters.json']));
    for (const name of modules) expect(inputs).toHaveProperty([name]);
    // Not what only the CLI uses.
    for (const name of ['scripts/lib/progress.js', 'scripts/lib/site.js', 'scripts/lib/lab-lint.js']) expect(modules).not.toContain(name);
  });

  test("not the learner's files: editing a lab never makes the site stale", () => {
    for (const lab of labs) for (const file of labFiles(lab)) expect(inputs).not.toHaveProperty([`labs/${lab.slug}/${file}`]);
  });

  test("not the code that only runs checks (its effect on a check's definition is the definition's input), nor fixtures a walkthrough does not quote or fold in, nor the build itself", () => {
    // Quoted in a code block, or folded in by a solution-code directive.
    const quoted = new Set(
      labs
        .flatMap((lab) => [
          ...readWalkthrough(lab.readme).codeBlocks.map((block) => block.title),
          ...parseDirectives(fs.readFileSync(lab.readme, 'utf8')).flatMap((d) => d.excerpts.map((e) => e.path)),
        ])
        .filter(Boolean),
    );
    for (const name of Object.keys(inputs).filter((n) => !quoted.has(n))) {
      expect(name).not.toMatch(/^(scripts\/(harness|checks|cli|profile)\/|site\/(build|node_modules|\.docusaurus)\/)/);
      expect(name).not.toMatch(/\/fixtures|fixtures\.test\.js$|\/check\/(calibrate\.js|verdicts\.test\.js)$/);
    }
    // A quoted file is an input wherever it lives: the page copies its lines.
    for (const name of [...quoted].filter((n) => /^(solutions|scripts|test)\//.test(n) && fs.existsSync(path.join(ROOT, n)))) expect(inputs).toHaveProperty([name]);
  });

  test('the base URL is an input: a build for another path is not the workbook server\'s', () => {
    expect(buildInputs({ baseUrl: '/workbook/' })['[base URL]']).not.toBe(inputs['[base URL]']);
  });
});

test("a build reads every input afresh: Rspack's persistent cache, which would keep a page quoting code that changed, is off", () => {
  // (Read as text: loading the config needs the site's packages, which npm test does without.)
  const config = fs.readFileSync(path.join(ROOT, 'site', 'docusaurus.config.js'), 'utf8');
  expect(config).toMatch(/^\s*rspackPersistentCache: false,$/m);
  expect(config).not.toMatch(/^\s*faster: true,/m);
});

describe('the stamp says when a build is stale, and which inputs moved', () => {
  let dir;
  const current = buildInputs();
  const stampWith = (inputs) => fs.writeFileSync(path.join(dir, STAMP_NAME), JSON.stringify({ baseUrl: '/', inputs }));

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-site-build-'));
    fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html>');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('current when every input matches', () => {
    stampWith(current);
    expect(buildState({ dir })).toEqual({ state: 'current', changed: [] });
  });

  test('stale, naming each changed, added and removed input, and the command that rebuilds it', () => {
    const [first, second] = Object.keys(current);
    const { [second]: _dropped, ...rest } = current;
    stampWith({ ...rest, [first]: '0000000000000000', 'labs/gone/README.md': 'ffffffffffffffff' });
    const status = buildState({ dir });
    expect(status.state).toBe('stale');
    expect(status.changed.sort()).toEqual([`added: ${second}`, `changed: ${first}`, 'removed: labs/gone/README.md'].sort());
    const message = staleMessage(status);
    expect(message).toContain(`\`${BUILD_COMMAND}\``);
    expect(message).toContain(`changed: ${first}`);
    // The way back, for a file edited by accident (a virtual input in brackets has none).
    if (!first.includes('[')) expect(message).toContain(`git checkout -- ${first}`);
    const oneFile = staleMessage({ state: 'stale', changed: ['changed: labs/x/README.md', 'changed: [check definition of x]'] });
    expect(oneFile).toMatch(/To put that file back as committed instead: git checkout -- labs\/x\/README\.md$/);
    expect(BUILD_COMMAND).toBe('npm run site:build');
    expect(rootPackage.scripts['site:build']).toBe('node scripts/site-build.js');
  });

  test('a long list of changes is cut short, saying how many more', () => {
    stampWith({});
    const status = buildState({ dir });
    expect(status.changed.length).toBe(Object.keys(current).length);
    expect(staleMessage(status, { max: 2 })).toMatch(new RegExp(`and ${status.changed.length - 2} more`));
  });

  test('missing and unstamped builds say how to get one', () => {
    expect(staleMessage(buildState({ dir }))).toMatch(/no record of what it was built from.*npm run site:build/);
    fs.rmSync(path.join(dir, 'index.html'));
    expect(staleMessage(buildState({ dir }))).toMatch(/missing.*git checkout -- site\/build.*npm run site:build/);
  });

  test('line endings do not matter in text (a Windows checkout may have CRLF), and every byte matters elsewhere', () => {
    const file = `labs/${labs[0].slug}/README.md`;
    const text = fs.readFileSync(path.join(ROOT, file));
    expect(fileHash(file, text)).toBe(current[file]);
    expect(fileHash(file, Buffer.from(text.toString('utf8').replace(/\n/g, '\r\n')))).toBe(current[file]);
    expect(fileHash(file, Buffer.concat([text, Buffer.from('\n')]))).not.toBe(current[file]);
    expect(fileHash('a.png', Buffer.from('x\r\ny'))).not.toBe(fileHash('a.png', Buffer.from('x\ny')));
  });
});

describe('what git holds, which is what a learner clones', () => {
  const tracked = git('ls-files', '--', 'site/build').split('\n').filter(Boolean);

  test('the built site and its stamp are committed', () => {
    expect(tracked).toContain('site/build/index.html');
    expect(tracked).toContain(`site/build/${STAMP_NAME}`);
    for (const lab of labs) expect(tracked).toContain(`site/build/labs/${lab.slug}/index.html`);
  });

  test('the captures are committed once, under site/static, not again in the build', () => {
    expect(tracked.filter((file) => file.startsWith('site/build/captures/'))).toEqual([]);
    expect(git('check-ignore', 'site/build/captures/index.json').trim()).toBe('site/build/captures/index.json');
    expect(git('ls-files', '--', 'site/static/captures/index.json').trim()).toBe('site/static/captures/index.json');
  });

  test("npm ci installs none of the site's packages", () => {
    expect(rootPackage.scripts.postinstall ?? '').not.toMatch(/site/);
    for (const name of Object.keys({ ...rootPackage.dependencies, ...rootPackage.devDependencies })) expect(name).not.toMatch(/^@docusaurus\/|^react(-dom)?$/);
  });
});

describe('the workbook server serves site/build, then site/static', () => {
  let build;
  let staticDir;
  let workbook;
  let port;
  const get = (urlPath) =>
    new Promise((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: urlPath, headers: { host: `127.0.0.1:${port}` } }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode, body }));
        })
        .on('error', reject);
    });

  beforeAll(async () => {
    build = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-build-'));
    staticDir = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-static-'));
    fs.writeFileSync(path.join(build, 'index.html'), 'home');
    fs.writeFileSync(path.join(build, '404.html'), 'not here');
    fs.mkdirSync(path.join(build, 'img'));
    fs.writeFileSync(path.join(build, 'img', 'logo.svg'), 'built logo');
    fs.mkdirSync(path.join(staticDir, 'img'));
    fs.writeFileSync(path.join(staticDir, 'img', 'logo.svg'), 'static logo');
    fs.mkdirSync(path.join(staticDir, 'captures'));
    fs.writeFileSync(path.join(staticDir, 'captures', 'index.json'), '{"labs":{}}');
    fs.writeFileSync(path.join(os.tmpdir(), 'workbook-outside.txt'), 'secret');
    workbook = createWorkbookServer({ siteDir: [build, staticDir] });
    port = new URL(await workbook.listen(0)).port;
  });
  afterAll(async () => {
    await workbook.close();
    for (const dir of [build, staticDir]) fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(path.join(os.tmpdir(), 'workbook-outside.txt'), { force: true });
  });

  test('a file in both comes from the build; one only in site/static (the captures) from there', async () => {
    expect(await get('/img/logo.svg')).toEqual({ status: 200, body: 'built logo' });
    expect(await get('/captures/index.json')).toEqual({ status: 200, body: '{"labs":{}}' });
    expect(await get('/')).toEqual({ status: 200, body: 'home' });
  });

  test("a missing page is the build's 404, and nothing outside the folders is served", async () => {
    expect(await get('/labs/nope')).toEqual({ status: 404, body: 'not here' });
    expect((await get('/..%2fworkbook-outside.txt')).body).not.toBe('secret');
    expect((await get('/captures/../../workbook-outside.txt')).body).not.toBe('secret');
  });

  test('`npm start` and the site tests serve the same folders, in that order', () => {
    expect(SITE_ROOTS).toEqual([BUILD_DIR, STATIC_DIR]);
  });
});

describe('CI compares the committed site with a build from its sources, page by page', () => {
  let a;
  let b;
  const page = (dir, rel, html) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), html);
  };
  beforeEach(() => {
    a = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-build-a-'));
    b = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-build-b-'));
  });
  afterEach(() => {
    for (const dir of [a, b]) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('what differs between two builds of the same sources does not count: asset hashes, CSS-module suffixes', () => {
    page(a, 'labs/x/index.html', '<script src=/assets/js/runtime~main.5008c190.js></script><h2 class="anchor title_fXgn">Measure</h2>');
    page(b, 'labs/x/index.html', '<script src=/assets/js/runtime~main.aac6cc6e.js></script><h2 class="anchor title_Dy-a">Measure</h2>');
    expect(normalisePage('<a class=toggle_vylO href=/assets/css/styles.16aa9534.css>')).toBe('<a class=toggle_CLASS href=/assets/css/styles.HASH.css>');
    expect(compareBuilds(a, b)).toEqual([]);
  });

  test('what a page says does count, and so does a page only one build has (the captures aside)', () => {
    page(a, 'labs/x/index.html', '<h2>The symptom</h2>');
    page(b, 'labs/x/index.html', '<h2>The symptom, changed</h2>');
    page(b, 'guide/new/index.html', '<h1>New</h1>');
    page(b, 'captures/lab/doctor.html', '<h1>Report</h1>');
    const problems = compareBuilds(a, b);
    expect(problems).toHaveLength(2);
    expect(problems.join('\n')).toMatch(/^labs\/x\/index\.html: .*changed/m);
    expect(problems.join('\n')).toMatch(/^guide\/new\/index\.html: only in /m);
  });
});
