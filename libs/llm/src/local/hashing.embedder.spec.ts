import { LocalHashingEmbedder } from './hashing.embedder';
import { hash32, lightStem } from './hashing.features';

const cosine = (a: number[], b: number[]) => a.reduce((sum, v, i) => sum + v * b[i], 0);
const norm = (v: number[]) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));

async function embedOne(embedder: LocalHashingEmbedder, text: string): Promise<number[]> {
  const { vectors } = await embedder.embed({ texts: [text], timeoutMs: 1000 });
  return vectors[0];
}

describe('LocalHashingEmbedder', () => {
  const embedder = new LocalHashingEmbedder();

  it('describes itself as the local provider, 1024 dimensions by default', () => {
    expect(embedder.provider).toBe('local');
    expect(embedder.model).toBe('local-hash-v1');
    expect(embedder.model.startsWith('local-')).toBe(true);
    expect(embedder.dimensions).toBe(1024);
  });

  it('is deterministic: same vector twice and across instances', async () => {
    const text = 'Alice Johnson works at Acme Corporation in Berlin.';
    const a = await embedOne(embedder, text);
    const b = await embedOne(embedder, text);
    const c = await embedOne(new LocalHashingEmbedder(1024), text);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });

  it('has pinned features: a change here needs a new model name, not a silent drift', () => {
    // If this fails, vectors stored under `local-hash-v1` are no longer comparable with new
    // ones: bump LOCAL_EMBEDDING_MODEL instead of updating these numbers.
    const v = new LocalHashingEmbedder(1024).embedText('Alice Johnson works at Acme Corporation in Berlin.');
    expect(v.filter((x) => x !== 0)).toHaveLength(103);
    expect(v[5]).toBeCloseTo(-0.060740311794, 10);
    expect(v.reduce((s, x, i) => s + x * ((i % 7) + 1), 0)).toBeCloseTo(5.794786517737, 9);
    expect(hash32('w:alice')).toBe(3544406441);
  });

  it.each([256, 1024, 7])('respects the dimension (%i) and returns unit vectors', async (dimensions) => {
    const e = new LocalHashingEmbedder(dimensions);
    expect(e.dimensions).toBe(dimensions);
    const { vectors } = await e.embed({ texts: ['Microsoft acquired GitHub in 2018.', 'Bob moved to Paris.'], timeoutMs: 1000 });
    for (const v of vectors) {
      expect(v).toHaveLength(dimensions);
      expect(norm(v)).toBeCloseTo(1, 10);
    }
  });

  it('carries its width in its model name unless it is the full 1024', () => {
    expect(new LocalHashingEmbedder(1024).model).toBe('local-hash-v1');
    expect(new LocalHashingEmbedder(256).model).toBe('local-hash-v1-256d');
  });

  it('rejects a dimension that is not a positive integer', () => {
    expect(() => new LocalHashingEmbedder(0)).toThrow(RangeError);
    expect(() => new LocalHashingEmbedder(12.5)).toThrow(RangeError);
  });

  it('scores a question closer to the sentence that answers it than to unrelated text', async () => {
    const [fact, question, weather] = (
      await embedder.embed({
        texts: ['Alice works at Acme', 'Where does Alice work?', 'The weather in Paris is rainy'],
        timeoutMs: 1000,
      })
    ).vectors;
    const related = cosine(fact, question);
    const unrelated = cosine(fact, weather);
    expect(related).toBeGreaterThan(0.4);
    expect(Math.abs(unrelated)).toBeLessThan(0.1);
    expect(related - unrelated).toBeGreaterThan(0.3);
    expect(cosine(question, weather)).toBeLessThan(0.1);
  });

  it('matches inflected forms and shared names', async () => {
    const a = await embedOne(embedder, 'When did Bob move to Paris?');
    const b = await embedOne(embedder, 'In March 2023, Bob moved to Paris.');
    const c = await embedOne(embedder, 'Microsoft acquired GitHub in 2018.');
    expect(cosine(a, b)).toBeGreaterThan(cosine(a, c) + 0.3);
    expect(lightStem('works')).toBe(lightStem('worked'));
    expect(lightStem('moved')).toBe(lightStem('moving'));
  });

  it('folds case and Latin diacritics', async () => {
    expect(await embedOne(embedder, 'Jürgen MÜLLER')).toEqual(await embedOne(embedder, 'jurgen muller'));
  });

  it('keeps batch order', async () => {
    const texts = ['first text about robots', 'second text about tea', 'third text about Berlin'];
    const { vectors } = await embedder.embed({ texts, timeoutMs: 1000 });
    for (let i = 0; i < texts.length; i++) expect(vectors[i]).toEqual(embedder.embedText(texts[i]));
  });

  it('gives the zero vector for a text without words, and counts words as input tokens', async () => {
    const result = await embedder.embed({ texts: ['', '   ', '?!', 'Alice works at Acme'], timeoutMs: 1000 });
    for (const v of result.vectors.slice(0, 3)) {
      expect(v).toHaveLength(1024);
      expect(v.every((x) => x === 0)).toBe(true);
    }
    expect(result.usage.inputTokens).toBe(4);
    expect(result.model).toBe('local-hash-v1');
  });

  it('handles an empty batch', async () => {
    expect(await embedder.embed({ texts: [], timeoutMs: 1000 })).toEqual({ vectors: [], usage: { inputTokens: 0 }, model: 'local-hash-v1' });
  });

  it('hands batches over 16 KiB to its work (worker threads in the app), with the same result', async () => {
    const batches: number[] = [];
    const work = { hashEmbed: async (texts: string[], dimensions: number) => (batches.push(texts.length), new LocalHashingEmbedder(dimensions).embedHere(texts)) };
    const offThread = new LocalHashingEmbedder(64, work);
    const small = ['Alice works at Acme.'];
    const large = Array.from({ length: 100 }, (_, i) => `Person ${i} lives in Berlin and works at Company ${i}, a firm of many people. `.repeat(3));
    expect(await offThread.embed({ texts: small, timeoutMs: 1000 })).toEqual(await new LocalHashingEmbedder(64).embed({ texts: small, timeoutMs: 1000 }));
    expect(batches).toEqual([]);
    expect(await offThread.embed({ texts: large, timeoutMs: 1000 })).toEqual(await new LocalHashingEmbedder(64).embed({ texts: large, timeoutMs: 1000 }));
    expect(batches).toEqual([100]);
  });
});
