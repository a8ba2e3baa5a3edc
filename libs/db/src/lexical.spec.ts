import { chunkLexicalText } from './lexical';

describe('chunkLexicalText', () => {
  it('leads an uploaded document\'s chunk with the document name', () => {
    expect(chunkLexicalText({ kind: 'document', name: 'Ed Wood' }, 'He was an American filmmaker.')).toBe('Ed Wood\nHe was an American filmmaker.');
  });

  it('does not repeat a name the text already opens with, and leaves gb texts as they are', () => {
    expect(chunkLexicalText({ kind: 'document', name: 'Ed Wood' }, 'Ed Wood\n\nHe was a filmmaker.')).toBe('Ed Wood\n\nHe was a filmmaker.');
    expect(chunkLexicalText({ kind: 'gb_text', name: 'remember 2026-01-01' }, 'Alice works at Acme.')).toBe('Alice works at Acme.');
  });
});
