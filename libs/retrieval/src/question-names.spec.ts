import { candidateNames, namedInPassage } from './question-names';

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
});
