'use strict';
// Lab 01's check against fixtures: other real fixes must pass, "fixes" that
// drop part of the work must fail. The half-fixes are the reference solution
// with one line changed (derivedApp). The lab's own suite is
// labs/01-sync-pbkdf2/check/verdicts.test.js; the gates' margins are in
// labs/01-sync-pbkdf2/check/margins.json.

const path = require('node:path');
const { findLab } = require('../../scripts/lib/labs');
const { describeFixtures, expectGates } = require('../../test/helpers/lab-verdicts');
const { derivedApp } = require('../../test/helpers/derived-app');

const lab = findLab('01');
const fixture = (name) => path.join(__dirname, 'fixtures', name);
const derived = (name, patches) => derivedApp(`01-${name}`, lab.solutionApp, patches);

// The reference's hash: off the event loop, with the starter's parameters.
const HASH = "return pbkdf2(password, salt, 10000, 512, 'sha512');";
const PROMISIFIED = 'const pbkdf2 = promisify(crypto.pbkdf2);';

describe('lab 01 · fixtures', () => {
  describeFixtures(lab, {
    // Correct fixes that hash elsewhere than the thread pool: the check
    // counts the CPU time of every thread and process of the app.
    otherFixes: [
      [
        "the starter's pbkdf2Sync in a pool of worker threads (piscina)",
        derived('worker-pool', [
          [PROMISIFIED, `const { Piscina } = require('piscina');\nconst pool = new Piscina({ filename: ${JSON.stringify(fixture('hash-worker.js'))} });`],
          // A worker hands a Buffer back as a Uint8Array: a Buffer of the same bytes again.
          [HASH, 'return pool.run({ password, salt }).then((bytes) => Buffer.from(bytes));'],
        ]),
      ],
      [
        // One child process hashes one password at a time and sends each
        // hash back; the event loop only passes messages.
        "the starter's pbkdf2Sync in a child process of the app's own",
        derived('hash-process', [
          [
            PROMISIFIED,
            [
              "if (process.argv[2] === 'hasher') {",
              '  process.on(\'message\', ({ id, password, salt }) => {',
              "    process.send({ id, hash: crypto.pbkdf2Sync(password, salt, 10000, 512, 'sha512').toString('base64') });",
              '  });',
              '  process.on(\'disconnect\', () => process.exit(0)); // it ends with the app',
              '  return; // the child serves nothing',
              '}',
              "const hasher = require('node:child_process').fork(__filename, ['hasher']);",
              'const waiting = new Map();',
              'let nextId = 0;',
              "hasher.on('message', ({ id, hash }) => {",
              "  waiting.get(id)(Buffer.from(hash, 'base64'));",
              '  waiting.delete(id);',
              '});',
            ].join('\n'),
          ],
          [HASH, 'return new Promise((resolve) => {\n    const id = nextId++;\n    waiting.set(id, resolve);\n    hasher.send({ id, password, salt });\n  });'],
        ]),
      ],
    ],
    cheats: [
      [
        'a "fix" that stops hashing passwords',
        fixture('skips-the-hash.js'),
        (result) => expectGates(result, { 'auth-work': false }),
      ],
      [
        // A sign-in then costs a tenth of a hash, and a stolen table of
        // hashes is ten times cheaper to crack.
        'a half-fix that hashes off the loop with a tenth of the iterations',
        derived('fewer-iterations', [[HASH, "return pbkdf2(password, salt, 1000, 512, 'sha512');"]]),
        (result) => expectGates(result, { 'auth-work': false }),
      ],
      [
        // PBKDF2 runs its iterations once per 64-byte block of SHA-512
        // output: one block instead of eight.
        'a half-fix that hashes off the loop with a 64-byte key instead of 512 bytes',
        derived('shorter-key', [[HASH, "return pbkdf2(password, salt, 10000, 64, 'sha512');"]]),
        (result) => expectGates(result, { 'auth-work': false }),
      ],
      [
        // Hashes in full when a sign-in is alone, which is how the auth-work
        // gate times them, and with one iteration of a 64-byte key when
        // others are in flight: a second, weak hash kept beside the real
        // one answers them right.
        'a "fix" that hashes in full only when a sign-in is alone',
        derived('full-hash-only-alone', [
          ['const users = new Map();', 'const users = new Map();\nlet inFlight = 0;'],
          [
            'users.set(username, { salt, hash: await hashPassword(password, salt) });',
            "users.set(username, { salt, hash: await hashPassword(password, salt), quick: await pbkdf2(password, salt, 1, 64, 'sha512') });",
          ],
          [
            'const attempt = await hashPassword(password, user.salt);\n  res.sendStatus(crypto.timingSafeEqual(user.hash, attempt) ? 200 : 401);',
            [
              'const busy = ++inFlight > 1;',
              'try {',
              "  const attempt = busy ? await pbkdf2(password, user.salt, 1, 64, 'sha512') : await hashPassword(password, user.salt);",
              '  res.sendStatus(crypto.timingSafeEqual(busy ? user.quick : user.hash, attempt) ? 200 : 401);',
              '} finally {',
              '  inFlight--;',
              '}',
            ].join('\n  '),
          ],
        ]),
        (result) => expect(result.responses.filter((r) => !r.pass).map((r) => r.name)).toEqual(['each sign-in under load still costs the app a hash of CPU time']),
      ],
      [
        'an async app that answers 200 to a wrong password',
        fixture('wrong-statuses.js'),
        (result) =>
          expect(result.responses.filter((r) => !r.pass).map((r) => r.name).join('\n')).toMatch(/wrong password/),
      ],
    ],
  });
});
