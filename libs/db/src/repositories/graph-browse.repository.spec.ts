import { namePrefixQuery } from './graph-browse.repository';

describe('namePrefixQuery', () => {
  it('makes each word of the search a prefix term, and nothing of the input tsquery syntax', () => {
    expect(namePrefixQuery('Acme Cor')).toBe('acme:* & cor:*');
    expect(namePrefixQuery("a:* & !(b | ') \\")).toBe('a:* & b:*');
    expect(namePrefixQuery('Zoë 2019')).toBe('zoë:* & 2019:*');
    expect(namePrefixQuery(' :&| ')).toBeNull();
  });
});
