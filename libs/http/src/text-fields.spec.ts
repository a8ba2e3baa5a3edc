import { z } from 'zod';
import { ValidationError } from '@loci/common';
import { FastApiValidationPipe } from './fastapi-validation';
import { freeText, plainName, unstorableStringIssues } from './text-fields';
import { ZodValidationPipe } from './zod-validation';

describe('string fields', () => {
  it('plainName refuses control characters, NUL and unpaired surrogates, naming the field when told', () => {
    const userId = plainName(z.string(), 'user_id');
    for (const bad of ['a\u0000', 'a\u0007', 'a\ud800', 'a\n']) {
      expect(userId.safeParse(bad).error?.issues[0].message).toBe('user_id must not contain control characters, NUL or unpaired surrogates');
    }
    expect(userId.parse('Zoë 😀')).toBe('Zoë 😀');
  });

  it('freeText removes NULs before the checks that follow it', () => {
    const text = freeText().refine((t) => t.trim().length > 0, 'must not be empty');
    expect(text.parse('Al\u0000ice')).toBe('Alice');
    expect(text.safeParse('\u0000\u0000').success).toBe(false);
  });

  it('finds unstorable strings anywhere in a validated value, keys included', () => {
    expect(unstorableStringIssues({ a: ['ok', 'b\u0000'], 'k\ud800': 1 }, 'body').map((i) => i.loc)).toEqual([
      ['body', 'k\ud800'],
      ['body', 'a', 1],
    ]);
  });

  it('the validation pipes refuse what a schema let through, on both dialects', () => {
    const loose = z.object({ note: z.string() });
    expect(() => new ZodValidationPipe(loose).transform({ note: 'x\u0000' }, { type: 'body' })).toThrow(ValidationError);
    try {
      new FastApiValidationPipe(loose).transform({ note: 'x\ud800' });
      throw new Error('not refused');
    } catch (error) {
      expect((error as ValidationError).details).toEqual([
        { loc: ['body', 'note'], msg: 'Value error, note must not contain NUL or unpaired surrogates', type: 'value_error' },
      ]);
    }
  });
});
