import { answerUser } from './stage-prompts';

describe('answer stage prompt', () => {
  const sources = [{ id: '1', text: 'Alice works at Acme.' }];

  it('is as it always was without as_of', () => {
    expect(answerUser('q', sources)).toBe('<sources>\n[source 1]\nAlice works at Acme.\n</sources>\n\nQuestion: q');
  });

  it('states both instants a question names: the one it is about (as_of) and the one its sources were recorded by (known_at)', () => {
    expect(answerUser('q', sources, new Date('2024-06-01T00:00:00Z'))).toMatch(
      /^The question is about 2024-06-01T00:00:00\.000Z: answer as things stood at that instant[^\n]*\n\n<sources>/,
    );
    expect(answerUser('q', sources, undefined, new Date('2023-01-01T00:00:00Z'))).toMatch(
      /^The sources are what had been recorded by 2023-01-01T00:00:00\.000Z[^\n]*\n\n<sources>/,
    );
    const both = answerUser('q', sources, new Date('2024-06-01T00:00:00Z'), new Date('2023-01-01T00:00:00Z'));
    expect(both).toContain('about 2024-06-01T00:00:00.000Z');
    expect(both).toContain('recorded by 2023-01-01T00:00:00.000Z');
    expect(answerUser('q', sources)).toMatch(/^<sources>/);
  });
});
