import { LocalWordVectorEmbedder } from './word-vector.embedder';
import { wordVectors } from './word-vectors';

const cosine = (a: number[], b: number[]) => a.reduce((sum, v, i) => sum + v * b[i], 0);

describe('LocalWordVectorEmbedder', () => {
  const embedder = new LocalWordVectorEmbedder();

  it('reads the committed 50,000-word, 100-d vocabulary, most frequent word first', () => {
    const vectors = wordVectors();
    expect(vectors.ranks.size).toBe(50_000);
    expect(vectors.dimensions).toBe(100);
    expect(vectors.ranks.get('the')).toBe(0);
    expect(embedder.model).toBe('local-wordvec-v1');
    expect(embedder.provider).toBe('local');
  });

  it('gives deterministic unit vectors', async () => {
    const { vectors, usage, model } = await embedder.embed({ texts: ['Alice works at Acme.', 'Alice works at Acme.'], timeoutMs: 1000 });
    expect(model).toBe('local-wordvec-v1');
    expect(vectors[0]).toHaveLength(100);
    expect(vectors[1]).toEqual(vectors[0]);
    expect(Math.hypot(...vectors[0])).toBeCloseTo(1, 6);
    expect(usage.inputTokens).toBe(8);
  });

  it('puts words of one meaning close where the hashing embedder shares nothing', () => {
    const car = embedder.embedText('car');
    expect(cosine(car, embedder.embedText('automobile'))).toBeGreaterThan(cosine(car, embedder.embedText('weather')) + 0.2);
    const employment = embedder.embedText('employment');
    expect(cosine(employment, embedder.embedText('employed by'))).toBeGreaterThan(cosine(employment, embedder.embedText('born in')));
  });

  it('weighs frequent words down: the question is closer to its answer than to a sentence sharing only common words', () => {
    const question = embedder.embedText('Where does Alice work?');
    expect(cosine(question, embedder.embedText('Alice is employed by a bank'))).toBeGreaterThan(
      cosine(question, embedder.embedText('Where does it rain the most?')),
    );
  });

  it('gives the zero vector to a text without a word of its vocabulary', () => {
    expect(embedder.embedText('Xqzwv Blorptik!').every((x) => x === 0)).toBe(true);
    expect(embedder.embedText('').every((x) => x === 0)).toBe(true);
  });
});
