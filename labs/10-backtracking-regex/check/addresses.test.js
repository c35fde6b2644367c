'use strict';
// The addresses lab 10's check sends are what it says they are: ordinary
// ones valid and of the length asked for, crafted ones within the
// specification's limits (so that no length bound it allows refuses them)
// and valid only for the family that says so, the corpus's named lengths
// exact. And the pattern the walkthrough times in its snippets is the
// shipped starter's. Quick: no app is started.

const fs = require('node:fs');
const path = require('node:path');
const { findLab } = require('../../../scripts/lib/labs');
const { shippedContent } = require('../../../scripts/lib/shipped');
const { readWalkthrough } = require('../../../scripts/lib/walkthrough');
const { isAddress, generator, ordinaryAddress, corpus, FAMILIES, MAX_RUN, MAX_ADDRESS, MAX_LOCAL_PART, MAX_LABEL } = require('./addresses');

const lab = findLab(path.basename(path.dirname(__dirname)));

describe('lab 10 · the addresses its check sends', () => {
  test('the specification, read by hand, on one address for each rule', () => {
    const valid = ['a@b.co', 'ann.smith+news@mail.example.com', 'A_B-c.d@xn--bcher-kva.example', '12345@example.photography', `${'a'.repeat(64)}@example.com`, `x@${'b'.repeat(63)}.com`];
    const invalid = ['', 'ann', 'a@b', '@b.co', 'a@', '.a@b.co', 'a.@b.co', 'a..b@b.co', 'a@-b.co', 'a@b-.co', 'a@b..co', 'a@b.co.', 'a@b.c', 'a@b.c0', 'a@b_c.co', 'a b@c.de', 'a@b@c.de', 'anné@b.co', '\u212Aate@b.co', 'a@b.co\n', `${'a'.repeat(65)}@example.com`, `x@${'b'.repeat(64)}.com`];
    expect(valid.filter((a) => !isAddress(a))).toEqual([]);
    expect(invalid.filter((a) => isAddress(a))).toEqual([]);
  });

  test('ordinary addresses are valid, of exactly the length asked for, with no run of letters longer than a word', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rand = generator(seed);
      for (let length = 6; length <= MAX_ADDRESS; length += 3) {
        const address = ordinaryAddress(rand, length);
        expect({ address, valid: isAddress(address), length: address.length }).toEqual({ address, valid: true, length });
        expect(address).not.toMatch(/[a-z0-9]{11}/i);
      }
    }
  });

  test('crafted addresses stay within every limit of the specification, and only the long top-level domain is valid', () => {
    for (let seed = 1; seed <= 8; seed++) {
      const rand = generator(seed);
      for (const family of FAMILIES) {
        for (let n = 8; n <= MAX_RUN; n++) {
          const address = family.make(rand, n);
          const [localPart, domain = ''] = address.split('@');
          expect(address.length).toBeLessThanOrEqual(MAX_ADDRESS);
          expect(localPart.length).toBeLessThanOrEqual(MAX_LOCAL_PART);
          for (const label of domain.split('.')) expect(label.length).toBeLessThanOrEqual(MAX_LABEL);
          expect({ family: family.id, address, valid: isAddress(address) }).toEqual({ family: family.id, address, valid: family.id === 'long-tld-valid' });
        }
      }
    }
  });

  test('the corpus has valid and invalid addresses, each named length exact, and is new on every seed', () => {
    const first = corpus(generator(1));
    expect(first.filter((c) => isAddress(c.address)).length).toBeGreaterThan(10);
    expect(first.filter((c) => !isAddress(c.address)).length).toBeGreaterThan(10);
    for (const { rule, address } of first) {
      const named = /^(\d+) characters in all/.exec(rule) || /^(\d+) (?:letters and digits |characters )before the @/.exec(rule);
      if (named) expect({ rule, length: rule.includes('in all') ? address.length : address.indexOf('@') }).toEqual({ rule, length: Number(named[1]) });
    }
    const second = corpus(generator(2));
    expect(second.map((c) => c.address)).not.toEqual(first.map((c) => c.address));
  });

  test("the walkthrough times the shipped starter's own pattern", () => {
    const shipped = shippedContent(lab, 'app.js');
    const starterPattern = /^const EMAIL = (\/.*\/i);$/m.exec(shipped.error ? fs.readFileSync(lab.app, 'utf8') : shipped.content)[1];
    const snippets = readWalkthrough(lab.readme).codeBlocks.filter((b) => b.runnable && /const EMAIL = \//.test(b.content));
    expect(snippets.length).toBeGreaterThan(0);
    for (const block of snippets) expect(/const EMAIL = (\/.*\/i);/.exec(block.content)[1]).toBe(starterPattern);
  });
});
