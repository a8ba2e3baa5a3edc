import { EDGE, paragraphRanges, topLevelBlocks, turnStarts } from './blocks';

describe('turnStarts', () => {
  // [name, text, the lines (from 0) that open turns, or null: not a conversation]
  const cases: Array<[string, string, number[] | null]> = [
    ['speaker names', 'Alice: hi there\nBob: hello\nAlice: how are you?', [0, 1, 2]],
    ['time stamps in brackets', '[12:01] Alice: hi\n[12:02] Bob: hello', [0, 1]],
    ['dated time stamps', '[2024-03-01 09:15] Alice: hi\n[2024-03-01 09:16] Bob: hello', [0, 1]],
    ['clock times with a dash', '9:15 AM - Dr. Chen: hi\n9:16 AM - Mary Ann Lee: hello', [0, 1]],
    ['user and assistant', 'User: What is BM25?\nAssistant: A ranking function.\nIt scores\n\nwords.\nUser: thanks', [0, 1, 5]],
    ['bold speakers', '**Alice:** hi\n**Bob:** hello', [0, 1]],
    ['indented, CRLF', '  Alice: hi\r\n  Bob: hello\r\n', [0, 1]],
    ['a header before the turns', 'Transcript of the call\n\nAlice: hi\nBob: hello', [2, 3]],
    ['one speaker only', 'Alice: hi\nAlice: again', null],
    ['one labelled line', 'Note: the office moved.\nIt is now in Berlin.', null],
    ['a URL and a clock time', 'See http://example.com for more\nMeeting at 12:30 today', null],
    ['a clause of four words before a colon', 'The reason was very simple: money.\nThe answer was short and clear: no.', null],
    ['plain prose', 'Alice works at Acme. Bob lives in Rome.', null],
  ];
  it.each(cases)('%s', (_name, text, lines) => {
    const lineStarts = [0, ...[...text.matchAll(/\n/g)].map((m) => m.index + 1)];
    expect(turnStarts(text)).toEqual(lines === null ? null : lines.map((n) => lineStarts[n]));
  });
});

describe('paragraphRanges', () => {
  const cases: Array<[string, string, string[]]> = [
    ['blank lines', 'One.\n\nTwo.\n\n\nThree.', ['One.', 'Two.', 'Three.']],
    ['whitespace on the blank line', 'One.\n \t\nTwo.', ['One.', 'Two.']],
    ['CRLF', 'One.\r\n\r\nTwo.\r\n', ['One.', 'Two.']],
    ['a single line break is not a paragraph edge', 'One\ncontinues.\n\nTwo.', ['One\ncontinues.', 'Two.']],
    ['whitespace only', ' \n\n \n', []],
  ];
  it.each(cases)('%s', (_name, text, paragraphs) => {
    expect(paragraphRanges(text, 0, text.length).map((r) => text.slice(r.start, r.end))).toEqual(paragraphs);
  });
});

describe('topLevelBlocks', () => {
  it('gives a conversation as its header paragraphs and its turns, each turn whole', () => {
    const text = 'Call notes\n\nAlice: hi\n\nstill Alice\nBob: hello';
    expect(topLevelBlocks(text).map((b) => [text.slice(b.start, b.end), b.edge])).toEqual([
      ['Call notes', EDGE.paragraph],
      ['Alice: hi\n\nstill Alice', EDGE.turn],
      ['Bob: hello', EDGE.turn],
    ]);
  });
});
