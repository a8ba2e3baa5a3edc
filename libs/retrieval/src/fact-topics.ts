/**
 * High-level keywords name topics ("employment", "residence"); facts name relations ("works at",
 * "lives in"). Neither BM25 nor the offline hashing embedder can see that the two mean the same,
 * so the global path adds the relation words of the topics a question names to the words it
 * matches facts with. A small hand-kept lexicon of the relations people ask about most, in the
 * extractors' relation vocabulary (snake_case predicates read as words); a provider's embedder
 * finds these on its own, and the lexicon costs it nothing.
 */
const TOPICS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(employ|employment|employer|employee|job|jobs|work|career|occupation|profession|workplace|company)$/, 'works at employed by worked at joined employer'],
  [/^(residence|home|live|lives|living|address|hometown|reside|resides|location|located)$/, 'lives in moved to resides in based in located in'],
  [/^(education|school|university|college|study|studies|studied|degree|alma|graduate|graduated)$/, 'studied at graduated from attended educated at'],
  [/^(family|relative|relatives|spouse|marriage|married|wife|husband|partner|children|child|parent|parents|sibling|siblings)$/, 'married to spouse of child of parent of sibling of'],
  [/^(birth|born|birthplace|origin|nationality|citizenship)$/, 'born in born on citizen of nationality'],
  [/^(ownership|owner|owns|own|founder|founded|founding|creator|created)$/, 'owns founded created owner of founder of'],
  [/^(leadership|leader|ceo|head|director|chair|chairman|president|manager|management|role|title|position)$/, 'ceo of leads heads director of president of manager of role'],
  [/^(membership|member|belongs|affiliation|team|band|group)$/, 'member of belongs to plays for part of'],
];

/** The relation words of the topics named by `words` (keywords or question words), or ''. */
export function relationWordsFor(words: readonly string[]): string {
  const found = new Set<string>();
  for (const phrase of words) {
    for (const word of phrase.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
      for (const [topic, relations] of TOPICS) if (topic.test(word)) found.add(relations);
    }
  }
  return [...found].join(' ');
}
