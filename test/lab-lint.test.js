'use strict';
// Rules of `npx workbook dev check` that read a walkthrough's text, on
// inputs made up for them (the real labs are linted by docs.test.js).
const { lintControlCharacters } = require('../scripts/lib/lab-lint');

describe('lab-lint · control characters', () => {
  test('a backspace pasted from `node inspect` is named with its line', () => {
    const problems = lintControlCharacters('labs/99-x/README.md', 'debug> pause\n\bbreak in app.js:32\n');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^labs\/99-x\/README\.md:2: a control character \(U\+0008\)/);
  });

  test('an escape of a colour counts too; tabs and Windows line ends do not', () => {
    expect(lintControlCharacters('w', '\u001b[32mok\u001b[0m')).toHaveLength(1);
    expect(lintControlCharacters('w', 'a\tb\r\nc\n')).toEqual([]);
  });
});
