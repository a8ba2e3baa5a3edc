import { normalizeEntityName } from '@loci/common';
import { candidateNames, MAX_NAME_WORDS, namedInPassage } from './question-names';

describe('candidateNames', () => {
  it('lists normalised word runs, longest first', () => {
    const names = candidateNames('Were Scott Derrickson and Ed Wood of the same nationality?');
    expect(names).toEqual(expect.arrayContaining(['scott derrickson', 'ed wood', 'nationality']));
    expect(names.indexOf('scott derrickson')).toBeLessThan(names.indexOf('scott'));
    expect(names[0].split(' ')).toHaveLength(6);
  });

  it('normalises as entity names are normalised (accents, case, punctuation)', () => {
    expect(candidateNames('Who founded Société Générale?')).toContain('societe generale');
  });

  it('is bounded for a long question', () => {
    const long = Array.from({ length: 5000 }, (_, i) => `w${i}`).join(' ');
    expect(candidateNames(long)).toHaveLength(400);
    expect(candidateNames('')).toEqual([]);
  });
});

describe('namedInPassage', () => {
  it('lists capitalised word runs as normalised names', () => {
    const names = namedInPassage('Leland is a town in Brunswick County, North Carolina. Maximum Overdrive was filmed there by Stephen King.');
    expect(names).toEqual(expect.arrayContaining(['leland', 'brunswick county', 'north carolina', 'maximum overdrive', 'stephen king']));
    expect(names).not.toContain('town');
    expect(names).not.toContain('filmed there');
  });

  it('keeps function words inside a name and is bounded', () => {
    expect(namedInPassage('He joined the Bank of England in 1990.')).toContain('bank of england');
    const long = Array.from({ length: 5000 }, (_, i) => `Name${i}`).join(' ');
    expect(namedInPassage(long)).toHaveLength(400);
  });

  it('names a run exactly as normalizeEntityName names the run as written', () => {
    const text =
      "O'Brien-Smith met Société Générale's CEO at St. Mary’s in ΟΔΥΣΣΕΥΣ Street; the ﬁnal Ⅻ Report by J.R.R. Tolkien (1954) and Mary-Kate Olsen, Zoë Saldaña.";
    const words = text.match(/[\p{L}\p{N}](?:[\p{L}\p{N}'’.-]*[\p{L}\p{N}])?/gu)!;
    const capitalised = (w: string) => /^[\p{Lu}\p{N}]/u.test(w);
    const expected = new Set<string>();
    for (let i = 0; i < words.length; i++) {
      if (!capitalised(words[i])) continue;
      for (let n = 1; n <= MAX_NAME_WORDS && i + n <= words.length; n++) {
        if (!capitalised(words[i + n - 1])) continue;
        const name = normalizeEntityName(words.slice(i, i + n).join(' '));
        if (name) expected.add(name);
      }
    }
    expect(namedInPassage(text)).toEqual([...expected]);
  });
});
