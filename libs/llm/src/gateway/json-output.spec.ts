import { z } from 'zod';
import { parseModelJson } from './json-output';

const schema = z.object({ answer: z.string(), edges: z.array(z.number()) });

describe('parseModelJson', () => {
  it('reads plain JSON', () => {
    expect(parseModelJson('{"answer":"Acme","edges":[1]}', schema)).toEqual({ ok: true, value: { answer: 'Acme', edges: [1] } });
  });

  it('tolerates code fences and prose around the JSON', () => {
    expect(parseModelJson('```json\n{"answer":"Acme","edges":[]}\n```', schema).ok).toBe(true);
    expect(parseModelJson('Here you go: {"answer":"Acme","edges":[2]} Hope it helps.', schema)).toEqual({
      ok: true,
      value: { answer: 'Acme', edges: [2] },
    });
  });

  it('explains what is wrong, for the repair request', () => {
    expect(parseModelJson('I cannot answer that.', schema)).toEqual({ ok: false, problem: 'the reply contains no JSON object' });
    const broken = parseModelJson('{"answer": "Acme", "edges": [1,}', schema);
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.problem).toMatch(/not valid JSON/);
    const wrongShape = parseModelJson('{"answer": {"name": "Acme"}}', schema);
    expect(!wrongShape.ok && wrongShape.problem).toMatch(/answer: .*edges: /);
  });
});

describe('parseModelJson mends near-misses instead of failing', () => {
  const relation = z.object({
    relation: z.string(),
    description: z.string().default(''),
    keywords: z.array(z.string()).default([]),
  });
  const extraction = z.object({ relations: z.array(relation) });

  it('splits a string where a list is expected on commas and semicolons', () => {
    const reply = '{"relations":[{"relation":"works_at","keywords":"employment"},{"relation":"lives_in","keywords":"home, city; residence"}]}';
    expect(parseModelJson(reply, extraction)).toEqual({
      ok: true,
      value: {
        relations: [
          { relation: 'works_at', description: '', keywords: ['employment'] },
          { relation: 'lives_in', description: '', keywords: ['home', 'city', 'residence'] },
        ],
      },
    });
  });

  it('gives a null or missing optional field its default, and a number where text is expected its text', () => {
    expect(parseModelJson('{"relations":[{"relation":7,"description":null}]}', extraction)).toEqual({
      ok: true,
      value: { relations: [{ relation: '7', description: '', keywords: [] }] },
    });
  });

  it('still fails on real garbage', () => {
    expect(parseModelJson('{"relations":"works_at"}', extraction).ok).toBe(false);
    expect(parseModelJson('{"relations":[{"description":"no predicate"}]}', extraction).ok).toBe(false);
    expect(parseModelJson('{"relations":[{"relation":null}]}', extraction).ok).toBe(false);
    expect(parseModelJson('{"relations":{"relation":"works_at"}}', extraction).ok).toBe(false);
  });
});
