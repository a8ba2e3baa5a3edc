import { withoutStaleStatements } from './stale-statements';

describe('withoutStaleStatements', () => {
  const BEFORE = 'Alice works at Acme since 2023.';
  const AFTER = 'In March 2024, Alice joined Globex.';

  it('takes an ended fact’s sentence out of passages and descriptions, and drops a source left empty', () => {
    const sources = [
      { id: 'edge:2', text: AFTER },
      { id: 'passage:1', text: `${BEFORE} She likes it there.` },
      { id: 'entity:3', text: `2023: ${BEFORE}` },
      { id: 'entity:1', text: `Alice: ${BEFORE}; ${AFTER}` },
    ];
    expect(withoutStaleStatements(sources, [BEFORE], [AFTER])).toEqual([
      { id: 'edge:2', text: AFTER },
      { id: 'passage:1', text: 'She likes it there.' },
      { id: 'entity:1', text: `Alice: ${AFTER}` },
    ]);
  });

  it('drops a list item that states an ended fact whole, and keeps the block’s other lines', () => {
    const block = ['Entities:', `- Alice Johnson (person): ${BEFORE}`, `- 2023 (date): ${BEFORE}; ${AFTER}`, '- Acme (organization)', 'Facts:', `- Alice joined Globex: ${AFTER}`].join('\n');
    expect(withoutStaleStatements([{ id: 'kg', text: block }], [BEFORE], [AFTER])).toEqual([
      { id: 'kg', text: ['Entities:', '- Acme (organization)', 'Facts:', `- Alice joined Globex: ${AFTER}`].join('\n') },
    ]);
  });

  it('keeps a sentence a live fact also states, and every source when nothing ended', () => {
    const both = 'Bob works at Zircon and lives in Oslo.';
    const sources = [{ id: 'passage:1', text: both }];
    expect(withoutStaleStatements(sources, [both], [both])).toEqual(sources);
    expect(withoutStaleStatements(sources, [], [])).toBe(sources);
  });

  it('matches each statement of a merged description, letter case apart', () => {
    const sources = [{ id: 'passage:1', text: 'bob lives in oslo. Bob is tall.' }];
    expect(withoutStaleStatements(sources, ['Bob works at Zircon.; Bob lives in Oslo.'], [])).toEqual([{ id: 'passage:1', text: 'Bob is tall.' }]);
  });
});
