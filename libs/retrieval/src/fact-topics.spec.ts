import { relationWordsFor } from './fact-topics';

describe('relationWordsFor', () => {
  it('maps a topic keyword to the relation words facts use', () => {
    expect(relationWordsFor(['employment'])).toContain('works at');
    expect(relationWordsFor(['Where does Alice live now?'.split(' ').join(' ')])).toContain('lives in');
  });

  it('adds nothing for words that name no topic, and each topic once', () => {
    expect(relationWordsFor(['quantum', 'sardines'])).toBe('');
    expect(relationWordsFor(['job', 'employer']).match(/works at/g)).toHaveLength(1);
  });
});
