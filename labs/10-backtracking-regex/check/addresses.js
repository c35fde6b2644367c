'use strict';
// The addresses lab 10's check sends, and the specification they are judged
// by. Three kinds:
//
// - ordinary addresses: what real people type (first.last@company.com),
//   valid, of any length the check asks for, with no long unbroken run of
//   letters; a backtracking pattern and a linear one judge them equally fast.
// - crafted addresses: a long run of letters and digits followed by
//   something that makes a backtracking pattern give up only after trying
//   every way of cutting the run into pieces. Each FAMILY puts the run (of n
//   characters) in a different place and ends it differently, so that a
//   filter for one shape does not stand in for a linear pattern; one family
//   is valid (a long top-level domain), so that "refuse whatever is slow"
//   gives wrong answers. Every crafted address is within the specification's
//   limits (64 characters before the @, 63 in a label, 254 in all): no
//   length bound the specification allows can refuse it.
// - the corpus: valid and invalid addresses for every rule of the
//   specification, including valid ones at each length limit (so a tighter
//   bound refuses them) and invalid ones that a looser pattern accepts.
//
// Every address is drawn from a seeded generator, and the check seeds it
// afresh on every run: an app cannot answer from a list of the check's
// inputs. Expected answers come from isAddress(), the specification written
// out by hand without a regular expression.

const { seededRandom } = require('../../../scripts/harness/seeded-random');

const MAX_ADDRESS = 254;
const MAX_LOCAL_PART = 64;
const MAX_LABEL = 63;
const SEPARATORS = '._+-';

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const LETTERS = `${LOWER}${LOWER.toUpperCase()}`;
const DIGITS = '0123456789';

const isLetter = (c) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
const isDigit = (c) => c >= '0' && c <= '9';
const isAlnum = (c) => isLetter(c) || isDigit(c);

/** Words of letters and digits joined by single separators from `separators`. */
function wordsJoinedBy(text, separators) {
  if (text.length === 0) return false;
  let previousWasSeparator = true; // no separator may come first
  for (const c of text) {
    if (isAlnum(c)) previousWasSeparator = false;
    else if (separators.includes(c) && !previousWasSeparator) previousWasSeparator = true;
    else return false;
  }
  return !previousWasSeparator; // nor last
}

/** A label of the domain: letters, digits and hyphens, neither first nor last a hyphen. */
function isLabel(label) {
  if (label.length === 0 || label.length > MAX_LABEL) return false;
  if (label[0] === '-' || label[label.length - 1] === '-') return false;
  for (const c of label) if (!isAlnum(c) && c !== '-') return false;
  return true;
}

/**
 * The specification (the walkthrough's "The API"), read character by
 * character: true when the service must accept `text` as an address.
 */
function isAddress(text) {
  if (typeof text !== 'string' || text.length > MAX_ADDRESS) return false;
  const at = text.indexOf('@');
  if (at < 0 || at !== text.lastIndexOf('@')) return false;
  const localPart = text.slice(0, at);
  if (localPart.length > MAX_LOCAL_PART || !wordsJoinedBy(localPart, SEPARATORS)) return false;
  const labels = text.slice(at + 1).split('.');
  if (labels.length < 2 || !labels.every(isLabel)) return false;
  const tld = labels[labels.length - 1];
  return tld.length >= 2 && [...tld].every(isLetter);
}

/** The check's random source, seeded: the same seed, the same addresses. */
function generator(seed) {
  const { int, pick } = seededRandom(seed);
  const chars = (alphabet, n) => Array.from({ length: n }, () => pick(alphabet)).join('');
  return {
    int,
    pick,
    /** n letters and digits, mostly lower case: one unbroken run. */
    run: (n) => chars(`${LOWER}${LOWER}${LOWER}${LETTERS}${DIGITS}`, n),
    letters: (n) => chars(LOWER, n),
    word: () => pick(WORDS),
  };
}

const WORDS = [
  'anna', 'ben', 'chloe', 'dev', 'emma', 'farid', 'grace', 'hugo', 'ines', 'jon', 'kai', 'lena', 'marek', 'nora',
  'oscar', 'priya', 'quinn', 'rosa', 'sam', 'tariq', 'uma', 'vera', 'wen', 'yusuf', 'zoe', 'smith', 'garcia', 'novak',
  'mail', 'shop', 'knit', 'wool', 'studio', 'design', 'north', 'green', 'home', 'office', 'team', 'news', 'orders',
];
const TLDS = ['com', 'org', 'net', 'io', 'shop', 'de', 'fr', 'nl', 'uk', 'dev'];

/**
 * A valid address of exactly `length` characters (6 to 254) made of short
 * words, as people type them: first.last+tag@mail.company.tld.
 */
function ordinaryAddress(rand, length) {
  if (!(length >= 6 && length <= MAX_ADDRESS)) throw new RangeError(`an ordinary address has 6 to ${MAX_ADDRESS} characters, not ${length}`);
  // Drawn until one fits every rule (a label of many hyphenated words could
  // pass 63 characters): a handful of draws at most.
  for (let attempt = 0; attempt < 100; attempt++) {
    const tld = rand.pick(TLDS.filter((t) => t.length <= length - 4));
    // About a third before the @, within its limit; at least "x.tld" after it.
    const localLength = Math.max(1, Math.min(MAX_LOCAL_PART, Math.round((length - tld.length) / 3), length - tld.length - 3));
    const labelsLength = length - localLength - 1 - tld.length - 1;
    const address = `${shortWords(rand, localLength, () => rand.pick(SEPARATORS))}@${shortWords(rand, labelsLength, () => (rand.int(0, 4) ? '.' : '-'))}.${tld}`;
    if (address.length === length && isAddress(address)) return address;
  }
  throw new Error(`no ordinary address of ${length} characters could be drawn`);
}

/**
 * Words of at most eight letters joined by `separator()`, exactly `length`
 * characters, neither starting nor ending with a separator.
 */
function shortWords(rand, length, separator) {
  let text = '';
  while (text.length < length) {
    const room = length - text.length;
    if (text && room >= 3) text += separator();
    const word = `${rand.word()}${rand.int(0, 3) === 0 ? rand.int(1, 99) : ''}`;
    text += word.slice(0, Math.min(8, length - text.length));
  }
  // A separator left at the very end (the word after it did not fit): a letter instead.
  return SEPARATORS.includes(text[text.length - 1]) ? `${text.slice(0, -1)}${rand.letters(1)}` : text;
}

/** Labels of three to five letters and digits joined by dots, about n characters of them. */
function shortLabels(rand, n) {
  const labels = [];
  let left = Math.max(3, n);
  while (left > 0) {
    const size = left <= 5 ? Math.max(3, left) : rand.int(3, Math.min(5, left - 3));
    labels.push(rand.run(size));
    left -= size;
  }
  return labels.join('.');
}

/** Labels of letters and digits of at most MAX_LABEL characters, joined by dots: exactly `length` characters. */
function labelsOf(rand, length) {
  const count = Math.ceil((length + 1) / (MAX_LABEL + 1));
  const letters = length - (count - 1);
  return Array.from({ length: count }, (_, i) => rand.run(Math.floor(letters / count) + (i < letters % count ? 1 : 0))).join('.');
}

/**
 * The crafted families. `make(rand, n)` puts a run of about n letters and
 * digits where the family says; n runs from 8 to MAX_RUN, and at every n the
 * address is within the specification's limits.
 */
const MAX_RUN = 62;
const FAMILIES = [
  { id: 'local-stray-character', describe: 'a run before the @, then a character no address has', make: (r, n) => `${r.run(n)}!` },
  { id: 'local-separator-before-at', describe: 'a run before the @ that ends with a separator', make: (r, n) => `${r.run(n)}${r.pick(SEPARATORS)}@${r.word()}.com` },
  { id: 'local-domain-without-dot', describe: 'a run before the @, then a domain without a dot', make: (r, n) => `${r.run(n)}@${r.word()}` },
  { id: 'local-digit-in-tld', describe: 'a run before the @, then a top-level domain with a digit', make: (r, n) => `${r.run(n)}@${r.word()}.c0m` },
  { id: 'label-without-dot', describe: 'a run after the @ and no dot', make: (r, n) => `${r.word()}@${r.run(n)}` },
  { id: 'label-hyphen-before-dot', describe: 'a run after the @ that ends with a hyphen', make: (r, n) => `${r.word()}@${r.run(n)}-.${r.pick(TLDS)}` },
  { id: 'label-one-letter-tld', describe: 'a run after the @, then a one-letter top-level domain', make: (r, n) => `${r.word()}@${r.run(n)}.${r.letters(1)}` },
  {
    id: 'three-labels-digit-in-tld',
    describe: 'three runs as labels, then a top-level domain with a digit',
    make: (r, n) => {
      const a = Math.ceil(n / 3);
      const b = Math.ceil((n - a) / 2);
      return `${r.word()}@${r.run(a)}.${r.run(b)}.${r.run(n - a - b)}.c0m`;
    },
  },
  {
    // No label longer than five characters: a filter that refuses long runs
    // lets these through, and a pattern that can cut every label in more
    // than one way still multiplies the ways from one label to the next.
    id: 'many-short-labels',
    describe: 'many labels of three to five characters, then a top-level domain with a digit',
    make: (r, n) => `${r.word()}@${shortLabels(r, n)}.c0m`,
  },
  {
    // The whole of the specification's budget at the longest run: 64
    // characters before the @, labels of up to 63 after it, 254 in all.
    id: 'full-budget',
    describe: 'runs before the @ and as labels, up to all 254 characters the limits allow, then a top-level domain with a digit',
    make: (r, n) => {
      const total = Math.round((MAX_ADDRESS * n) / MAX_RUN);
      const local = Math.min(MAX_LOCAL_PART, Math.round((total * MAX_LOCAL_PART) / MAX_ADDRESS));
      return `${r.run(local)}@${labelsOf(r, total - local - '@.c0m'.length)}.c0m`;
    },
  },
  { id: 'tld-letters-then-digit', describe: 'a top-level domain of n letters and a digit', make: (r, n) => `${r.word()}@${r.word()}.${r.letters(n)}1` },
  // Valid: the starter's pattern first tries the top-level domain as one
  // more label, and cuts it every way before it lets go.
  { id: 'long-tld-valid', describe: 'a valid address whose top-level domain has n letters', make: (r, n) => `${r.word()}@${r.word()}.${r.letters(n)}` },
];

/**
 * Valid and invalid addresses for every rule of the specification, drawn
 * afresh from `rand`. Invalid ones fail within a few characters of their
 * start or are over a length limit, so that any pattern, backtracking or
 * not, judges them quickly: they test WHAT an app answers, not how fast.
 * @returns {Array<{address:string, rule:string}>}
 */
function corpus(rand) {
  const w = () => rand.word();
  const local = () => `${w()}${rand.pick(SEPARATORS)}${w()}`;
  const domain = () => `${w()}.${rand.pick(TLDS)}`;
  const cases = [
    // Valid.
    ['an ordinary address', `${local()}@${domain()}`],
    ['a plus tag', `${w()}+news@${w()}.${w()}.${rand.pick(TLDS)}`],
    ['every separator', `${w()}.${w()}_${w()}-${w()}+${w()}@${domain()}`],
    ['digits only before the @', `${rand.int(10000, 99999)}@${domain()}`],
    ['capitals', `${w().toUpperCase()}.${w()}@${w().toUpperCase()}.COM`],
    ['one letter before the @ and a two-letter top-level domain', `${rand.letters(1)}@${rand.letters(1)}.io`],
    ['hyphens inside a label', `${w()}@${w()}-${w()}.${rand.pick(TLDS)}`],
    ['two hyphens in a row inside a label (punycode)', `${w()}@xn--${rand.letters(5)}-${rand.letters(3)}.${rand.pick(TLDS)}`],
    ['many labels', `${w()}@${Array.from({ length: 6 }, () => rand.letters(2)).join('.')}.${rand.pick(TLDS)}`],
    ['a twelve-letter top-level domain', `${w()}@${w()}.photography`],
    ['64 characters before the @ (the limit)', `${shortWords(rand, MAX_LOCAL_PART, () => rand.pick(SEPARATORS))}@${domain()}`],
    ['64 letters and digits before the @, no separator', `${rand.run(MAX_LOCAL_PART)}@${domain()}`],
    ['a label of 63 characters (the limit)', `${w()}@${rand.run(MAX_LABEL)}.${rand.pick(TLDS)}`],
    ['254 characters in all (the limit)', longest(rand)],
    ['250 characters in all', ordinaryAddress(rand, 250)],
    ['200 characters in all', ordinaryAddress(rand, 200)],
    ['100 characters in all', ordinaryAddress(rand, 100)],
    // Invalid.
    ['no @', `${local()}.${domain()}`],
    ['two @', `${w()}@${w()}@${domain()}`],
    ['nothing before the @', `@${domain()}`],
    ['nothing after the @', `${local()}@`],
    ['a separator first', `${rand.pick(SEPARATORS)}${w()}@${domain()}`],
    ['a separator last before the @', `${w()}${rand.pick(SEPARATORS)}@${domain()}`],
    ['two separators in a row', `${w()}${rand.pick(SEPARATORS)}${rand.pick(SEPARATORS)}${w()}@${domain()}`],
    ['a space', `${w()} ${w()}@${domain()}`],
    ['a character no address has', `${w()}${rand.pick(['!', '#', '%', '*', '/', '=', '?', '~', '"', ','])}${w()}@${domain()}`],
    ['a letter outside ASCII', `${w()}\u00e9@${domain()}`],
    // Two letters outside ASCII that Unicode case folding matches as k and
    // s: a pattern with the i flag in Unicode mode (the u flag, or RE2,
    // which always works in Unicode) takes them for [a-z].
    ['the Kelvin sign (U+212A), which Unicode case folding matches as k', `\u212A${w()}@${domain()}`],
    ['a long s (U+017F) in the top-level domain, which Unicode case folding matches as s', `${w()}@${w()}.\u017Fhop`],
    ['a domain without a dot', `${w()}@${w()}`],
    ['a label that starts with a hyphen', `${w()}@-${w()}.${rand.pick(TLDS)}`],
    ['a label that ends with a hyphen', `${w()}@${w()}-.${rand.pick(TLDS)}`],
    ['an empty label', `${w()}@${w()}..${rand.pick(TLDS)}`],
    ['a dot at the end', `${w()}@${domain()}.`],
    ['a one-letter top-level domain', `${w()}@${w()}.${rand.letters(1)}`],
    ['a digit in the top-level domain', `${w()}@${w()}.c${rand.int(0, 9)}m`],
    ['an underscore after the @', `${w()}@${w()}_${w()}.${rand.pick(TLDS)}`],
    ['a line break at the end', `${local()}@${domain()}\n`],
    ['a space at the start', ` ${local()}@${domain()}`],
    ['an empty string', ''],
    ['65 characters before the @', `${shortWords(rand, MAX_LOCAL_PART + 1, () => rand.pick(SEPARATORS))}@${domain()}`],
    ['a label of 64 characters', `${w()}@${rand.run(MAX_LABEL + 1)}.${rand.pick(TLDS)}`],
    ['255 characters in all', `${longest(rand).slice(0, -3)}abcd`],
  ];
  return cases.map(([rule, address]) => ({ rule, address }));
}

/** A valid address of exactly 254 characters: 64 before the @, labels of at most 63 after it. */
function longest(rand) {
  const localPart = shortWords(rand, MAX_LOCAL_PART, () => rand.pick(SEPARATORS));
  const tld = rand.pick(['com', 'org', 'net']);
  // 64 + "@" + 63 + "." + 63 + "." + the rest + "." + tld = 254
  const rest = MAX_ADDRESS - MAX_LOCAL_PART - 1 - (MAX_LABEL + 1) * 2 - 1 - tld.length;
  return `${localPart}@${rand.run(MAX_LABEL)}.${rand.run(MAX_LABEL)}.${rand.run(rest)}.${tld}`;
}

module.exports = { isAddress, generator, ordinaryAddress, corpus, FAMILIES, MAX_RUN, MAX_ADDRESS, MAX_LOCAL_PART, MAX_LABEL };
