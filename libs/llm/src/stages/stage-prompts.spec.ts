import { answerUser } from './stage-prompts';

describe('answer stage prompt', () => {
  const sources = [{ id: '1', text: 'Alice works at Acme.' }];

  it('is as it always was without as_of', () => {
    expect(answerUser('q', sources)).toBe('<sources>\n[source 1]\nAlice works at Acme.\n</sources>\n\nQuestion: q');
  });

  it('gives the instant of an as_of question instead of now', () => {
    expect(answerUser('q', sources, new Date('2024-06-01T00:00:00Z'))).toMatch(
      /^The question is asked as of 2024-06-01T00:00:00\.000Z: answer as things stood at that instant[^\n]*\n\n<sources>/,
    );
  });
});
