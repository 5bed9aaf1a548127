import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { departmentField, SEARCHABLE_CHARACTER, upToPattern } from '../../src/catalogue/fields.js';
import { canonicalDeptCode } from '../../src/catalogue/geography.js';
import { searchKey } from '../../src/catalogue/text.js';

/*
 * The regexes that the published JSON Schemas carry, checked exhaustively against the code they
 * stand for: if a rule changes on one side only, these fail.
 */

describe('SEARCHABLE_CHARACTER', () => {
  it('is exactly the characters searchKey folds to a letter or digit, over the whole BMP', () => {
    const re = new RegExp(`^${SEARCHABLE_CHARACTER}$`, 'u');
    const wrong: string[] = [];
    for (let c = 0; c <= 0xffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const ch = String.fromCharCode(c);
      if (re.test(ch) !== (searchKey(ch) !== '')) wrong.push(c.toString(16));
    }
    expect(wrong).toEqual([]);
  });

  it('also holds outside the BMP, where nothing folds to ASCII (sampled every 7th code point)', () => {
    const re = new RegExp(SEARCHABLE_CHARACTER, 'u');
    for (let c = 0x10000; c <= 0x10ffff; c += 7) {
      const ch = String.fromCodePoint(c);
      if (searchKey(ch) !== '' || re.test(ch)) throw new Error(`U+${c.toString(16)}`);
    }
  });
});

describe('upToPattern', () => {
  it.each([1, 9, 10, 20, 50, 99, 100, 101, 250, 999, 1000])(
    'matches exactly the integers 1 to %i written without leading zeros',
    (max) => {
      const re = new RegExp(`^(?:${upToPattern(max)})$`);
      for (let n = 0; n <= 1200; n++) expect(re.test(String(n)), `${n}`).toBe(n >= 1 && n <= max);
      expect(re.test('01')).toBe(false);
    },
  );
});

describe('departmentField', () => {
  const field = z.object({ dept: departmentField('dept') });
  const accepts = (value: unknown) => field.safeParse({ dept: value }).success;

  it('accepts a text exactly when the geography knows the code (every string of up to 3 characters)', () => {
    const alphabet = [...'0123456789ABabCcz '];
    const strings = [''];
    for (const a of alphabet) {
      strings.push(a);
      for (const b of alphabet) {
        strings.push(a + b);
        for (const c of alphabet) strings.push(a + b + c);
      }
    }
    for (const s of strings) {
      if (s === '') continue;
      expect(accepts(s), JSON.stringify(s)).toBe(canonicalDeptCode(s) !== undefined);
    }
  });

  it('accepts a number exactly when it is a department code, and canonicalises it', () => {
    for (let n = -2; n <= 1000; n++) expect(accepts(n), `${n}`).toBe(canonicalDeptCode(String(n)) !== undefined);
    expect(accepts(69.5)).toBe(false);
    expect(field.parse({ dept: 1 }).dept).toBe('01');
    expect(field.parse({ dept: ' 2a ' }).dept).toBe('2A');
    expect(field.parse({ dept: '' }).dept).toBeUndefined();
  });
});
