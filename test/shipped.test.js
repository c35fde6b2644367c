'use strict';
// The shipped starters are recorded by git blob id (scripts/lib/shipped-starters.json)
// so that `reset` and the "starter fails" tests can recover them whatever the
// learner did to labs/. A maintainer who changes a starter re-records them:
//   node scripts/dev/record-shipped.js

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { labs } = require('../scripts/lib/labs');
const { manifest, blobId, shippedContent, isShipped } = require('../scripts/lib/shipped');
const { resetLab } = require('../scripts/lib/restore-starter');

test('every lab has its app.js recorded', () => {
  for (const lab of labs) expect(manifest()[lab.slug]).toHaveProperty(['app.js']);
});

test('every recorded file can be recovered, with the content its id names', () => {
  for (const lab of labs) {
    for (const [file, id] of Object.entries(manifest()[lab.slug])) {
      const got = shippedContent(lab, file);
      if (got.error && !process.env.CI) {
        process.stderr.write(`    Skipping ${lab.slug}/${file}: ${got.error}\n`);
        continue;
      }
      expect(got.error).toBeUndefined();
      expect(blobId(got.content)).toBe(id);
    }
  }
});

// On a fresh clone (CI), labs/ is exactly as shipped: if this fails, a starter
// changed without `node scripts/dev/record-shipped.js`.
(process.env.CI ? test : test.skip)('in CI, the committed labs/ match the record', () => {
  for (const lab of labs) {
    for (const file of Object.keys(manifest()[lab.slug])) expect(`${lab.slug}/${file}: ${isShipped(lab, file)}`).toBe(`${lab.slug}/${file}: true`);
  }
});

describe('reset never loses the learner\'s work', () => {
  let tmp;
  let lab;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'workbook-reset-'));
    const real = labs[0];
    lab = { ...real, dir: path.join(tmp, 'lab'), app: path.join(tmp, 'lab', 'app.js') };
    fs.mkdirSync(lab.dir);
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test('an edited app is backed up, then restored to the shipped starter', () => {
    const shipped = shippedContent(labs[0], 'app.js');
    if (shipped.error) return; // covered by the recovery test above
    fs.writeFileSync(lab.app, '// my half-finished fix\n');
    const outcome = resetLab(lab, { backupRoot: path.join(tmp, 'backups') });
    expect(outcome.error).toBeUndefined();
    expect(fs.readFileSync(lab.app, 'utf8')).toBe(shipped.content);
    expect(fs.readFileSync(path.join(outcome.backupDir, 'app.js'), 'utf8')).toBe('// my half-finished fix\n');
  });

  test('an untouched app is left alone, with no backup made', () => {
    const shipped = shippedContent(labs[0], 'app.js');
    if (shipped.error) return;
    fs.writeFileSync(lab.app, shipped.content.replace(/\n/g, '\r\n')); // a Windows checkout
    const outcome = resetLab(lab, { backupRoot: path.join(tmp, 'backups') });
    expect(outcome).toEqual({ restored: [], backupDir: null });
    expect(fs.existsSync(path.join(tmp, 'backups'))).toBe(false);
  });

  test('when the starter cannot be recovered, nothing is touched', () => {
    fs.writeFileSync(lab.app, '// my work\n');
    const broken = { ...lab, slug: 'no-such-lab' };
    const outcome = resetLab({ ...broken }, { backupRoot: path.join(tmp, 'backups') });
    expect(outcome.restored ?? []).toEqual([]); // no files recorded for an unknown lab
    expect(fs.readFileSync(lab.app, 'utf8')).toBe('// my work\n');
  });
});
