import { HONORIFICS } from './lexicon';
import type { Mention } from './mentions';
import type { ParsedText, Token } from './nlp';

/** Nouns of made things named after their maker, sitter or subject ("a Picasso sketch", "the statue of Nelson"). */
const WORK_NOUNS = new Set(
  'statue sculpture bust portrait painting sketch drawing watercolour watercolor etching print mural fresco tapestry monument memorial manuscript'.split(' '),
);
const DETERMINERS = new Set(['the', 'a', 'an', 'his', 'her', 'their', 'my', 'our', 'its', 'this', 'that']);

/**
 * "owns a Picasso sketch", "the Kelly statue", "the statue of Nelson": a name next to the noun of
 * a work of art names the work, not the person it is by or of. Picasso does not hang anywhere;
 * the sketch does, and it is what is sold or moved. The mention grows to the whole phrase and is
 * a thing (`concept`); "Picasso painted…" and "a statue in Leeds" are left as they are.
 */
export function namedWorks(mentions: Mention[], parsed: ParsedText): Mention[] {
  const tokens = parsed.tokens;
  for (let i = 0; i < mentions.length; i++) {
    const mention = mentions[i];
    if (mention.common) continue;
    const before = tokens[mention.start - 1];
    const after = tokens[mention.end];
    const last = tokens[mention.end - 1];
    // "a Picasso sketch": determiner, name, the work's noun.
    if (isDeterminer(before) && isWorkNoun(after) && sameSentence(last, after) && last.post.trim() === '' && !isNoun(tokens[mention.end + 1], after)) {
      mentions[i] = { ...mention, end: mention.end + 1, name: `${mention.name} ${after.text}`, type: 'concept' };
      continue;
    }
    // "the statue of Nelson", "the portrait of Sir Walter Scott": determiner, the work's noun,
    // "of", the name with the titles the name leaves out.
    let start = mention.start;
    while (start > 0 && isTitle(tokens[start - 1])) start--;
    const of = tokens[start - 1];
    const noun = tokens[start - 2];
    if (of?.normal === 'of' && isWorkNoun(noun) && isDeterminer(tokens[start - 3]) && sameSentence(noun, last) && noun.post.trim() === '' && of.post.trim() === '') {
      const named = tokens.slice(start, mention.end).filter((t) => t.text !== '');
      mentions[i] = { ...mention, start: noun.index, name: `${noun.text} of ${named.map((t) => t.text.replace(/\.$/, '')).join(' ')}`, type: 'concept' };
    }
  }
  return mentions;
}

/** "Queen Victoria", "Sir Walter Scott": titles a person's name is stored without. */
const ROYAL_TITLES = new Set(['queen', 'king', 'prince', 'princess', 'emperor', 'empress', 'saint', 'pope']);
const isTitle = (token: Token) => /^\p{Lu}/u.test(token.text) && (HONORIFICS.has(token.normal.replace(/\.$/, '')) || ROYAL_TITLES.has(token.normal));
const isDeterminer = (token: Token | undefined) => token !== undefined && DETERMINERS.has(token.normal);
const isWorkNoun = (token: Token | undefined): token is Token => token !== undefined && WORK_NOUNS.has(token.normal) && /^\p{Ll}/u.test(token.text);
const sameSentence = (a: Token, b: Token) => a.sentence === b.sentence;
/** A noun right after the work's noun makes it a modifier ("the Picasso sketch book"). */
const isNoun = (token: Token | undefined, previous: Token) => token !== undefined && token.sentence === previous.sentence && previous.post.trim() === '' && token.tags.has('Noun') && !token.tags.has('Pronoun') && /^\p{Ll}/u.test(token.text);
