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
    const wrongShape = parseModelJson('{"answer": 3}', schema);
    expect(!wrongShape.ok && wrongShape.problem).toMatch(/answer: .*edges: /);
  });
});
