import { parseExplicitDate } from './dates';
import { extractLocally } from './extractor';
import { attributeTurns, sessionDate, turnOf } from './speaker-turns';

describe('speaker turns', () => {
  it("rewrites a turn's first person to its speaker, with the verb's person where it changes", () => {
    expect(turnOf('Caroline: Yesterday I went to the support group.')).toEqual({ speaker: 'Caroline', text: 'Yesterday Caroline went to the support group.' });
    expect(turnOf("Melanie: I'm a nurse and my daughter loves me.")?.text).toBe("Melanie is a nurse and Melanie's daughter loves Melanie.");
    expect(turnOf('Tom Baker: I work at Acme and I also teach. I have two cats.')?.text).toBe('Tom Baker works at Acme and Tom Baker also teaches. Tom Baker has two cats.');
    expect(turnOf('Ann: I went home, I study law.')?.text).toBe('Ann went home, Ann studies law.');
  });

  it('leaves labels, lines without a first person and prose alone', () => {
    expect(turnOf('Note: I will be late.')).toBeNull();
    expect(turnOf('Subject: my trip')).toBeNull();
    expect(turnOf('Paris: the capital of France.')).toBeNull();
    expect(turnOf('In 2020 I moved.')).toBeNull();
    const text = 'Alice works at Acme.\nBob: I live in Oslo\nThe end.';
    expect(attributeTurns(text)).toBe('Alice works at Acme.\nBob lives in Oslo.\nThe end.');
  });

  it("reads a session's date line as the time its turns speak from", () => {
    expect(sessionDate('Session date: 8 May 2023\nCaroline: hi', parseExplicitDate)?.toISOString()).toBe('2023-05-08T00:00:00.000Z');
    expect(sessionDate('Date: 2023-05-08\n', parseExplicitDate)?.toISOString()).toBe('2023-05-08T00:00:00.000Z');
    expect(sessionDate('Caroline: I updated the date: soon', parseExplicitDate)).toBeUndefined();
  });

  it('extracts the speaker as an entity with the facts of their turns, relative dates resolved and written out', () => {
    const extraction = extractLocally('Caroline: Yesterday I went to the LGBTQ support group in Boston.', { referenceDate: new Date('2023-05-08T00:00:00Z') });
    expect(extraction.entities).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Caroline', type: 'person' })]));
    const boston = extraction.relations.find((r) => r.source === 'Caroline' && r.target === 'Boston');
    expect(boston?.valid_at).toBe('2023-05-07T00:00:00.000Z');
    expect(boston?.description).toContain('Yesterday (2023-05-07)');
    expect(JSON.stringify(extraction)).not.toMatch(/"I"|"my"/);
  });

  it('resolves against the session date line, over the reference date', () => {
    const extraction = extractLocally('Session date: 8 May 2023\nCaroline: I moved to Denver two days ago.', { referenceDate: new Date('2026-01-01T00:00:00Z') });
    const moved = extraction.relations.find((r) => r.source === 'Caroline' && r.target === 'Denver');
    expect(moved?.valid_at).toBe('2023-05-06T00:00:00.000Z');
    expect(moved?.description).toContain('two days ago (2023-05-06)');
  });
});
