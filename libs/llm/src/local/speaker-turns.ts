import { lexiconTag } from './conjugation';

/**
 * Conversation turns ("Caroline: Yesterday I went to the support group.") read as what the
 * speaker said of themself: the offline extractor finds facts about named entities, and "I"
 * names nobody, so each turn's first person is rewritten to the speaker's name before the text
 * is parsed ("Yesterday Caroline went to the support group."). The speaker then becomes an
 * entity like any other person named in the text, with the facts their turns state.
 *
 * A turn is a line that starts with one to three capitalised words and a colon, and speaks in
 * the first person. Labels that look like one ("Note:", "Subject:", "Q:") are not speakers. Only whole words are rewritten,
 * and only the forms whose verb changes with the person are fixed ("I am" → "Caroline is");
 * other verbs read the same to the parser.
 */

const TURN = /^[ \t]*((?:\p{Lu}[\p{L}'’.-]*)(?:[ \t]+\p{Lu}[\p{L}'’.-]*){0,2})[ \t]*:[ \t]+(\S.*)$/u;

/** Words before a colon that label a line rather than name a speaker. */
const LABELS = new Set(
  [
    'note', 'notes', 'nb', 'ps', 'p.s.', 'subject', 're', 'fwd', 'date', 'time', 'session', 'summary', 'example', 'warning',
    'caution', 'important', 'update', 'q', 'a', 'question', 'answer', 'title', 'from', 'to', 'cc', 'tip', 'todo', 'step',
    'source', 'sources', 'location', 'address', 'phone', 'email', 'tags', 'status', 'result', 'results', 'edit', 'tl;dr',
  ].map((w) => w.toLowerCase()),
);

/** First-person forms and what they become, longest first so "I am" wins over "I". */
type Replacement = string | ((match: string, ...groups: Array<string | undefined>) => string);
const FIRST_PERSON: Array<[RegExp, (name: string) => Replacement]> = [
  [/\bI\s+am\b/g, (n) => `${n} is`],
  [/\bI['’]m\b/g, (n) => `${n} is`],
  [/\bI\s+was\b/g, (n) => `${n} was`],
  [/\bI\s+have\b/g, (n) => `${n} has`],
  [/\bI['’]ve\b/g, (n) => `${n} has`],
  [/\bI['’]d\b/g, (n) => `${n} would`],
  [/\bI['’]ll\b/g, (n) => `${n} will`],
  [/\bI\s+do\b/g, (n) => `${n} does`],
  [/\bI\s+don['’]t\b/g, (n) => `${n} doesn't`],
  // "I work at Acme" → "Caroline works at Acme": a present verb after "I" takes the third person.
  [/\bI\s+((?:also|still|now|really)\s+)?([a-z]+)\b/g, (n) => (_match: string, adverb?: string, verb?: string) => `${n} ${adverb ?? ''}${thirdPerson(verb ?? '')}`],
  [/\bI\b/g, (n) => n],
  // "We moved to Denver": "we" holds the speaker, so what it says of the speaker's household is
  // said of them ("our" is left: "our CTO" is the speaker's group's, record 0027).
  [/\b[Ww]e\s+are\b|\b[Ww]e['’]re\b/g, (n) => `${n} is`],
  [/\b[Ww]e\s+were\b/g, (n) => `${n} was`],
  [/\b[Ww]e\s+have\b|\b[Ww]e['’]ve\b/g, (n) => `${n} has`],
  [/\b[Ww]e['’]ll\b/g, (n) => `${n} will`],
  [/\b[Ww]e['’]d\b/g, (n) => `${n} would`],
  [/\b[Ww]e\s+((?:also|still|now|really)\s+)?([a-z]+)\b/g, (n) => (_match: string, adverb?: string, verb?: string) => `${n} ${adverb ?? ''}${thirdPerson(verb ?? '')}`],
  [/\b[Mm]yself\b/g, (n) => n],
  [/\b[Mm]ine\b/g, (n) => `${n}'s`],
  [/\b[Mm]y\b/g, (n) => `${n}'s`],
  [/\b[Mm]e\b/g, (n) => n],
];

/** Verbs people say of themselves in the present; others are past tense, modal or not verbs, and stay. */
const PRESENT_VERBS = new Set(
  [
    'work live love like own run manage lead teach study play write know want need use keep stay enjoy volunteer paint cook read',
    'go belong serve attend visit coach train sing dance draw build design sell buy rent drive ride help support care prefer hate',
    'speak report plan hope collect grow practice practise mentor organize organise host share date',
  ]
    .join(' ')
    .split(' '),
);

function thirdPerson(verb: string): string {
  if (!PRESENT_VERBS.has(verb)) return verb;
  if (verb === 'go') return 'goes';
  if (/(?:s|sh|ch|x|z|o)$/.test(verb)) return `${verb}es`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

/**
 * A sentence of a turn that leaves its subject out, as people do writing of themselves ("Finally
 * moved out of Brixton!", "Just started at Google."): it opens with a verb in the past.
 */
const SUBJECTLESS = /(^|[.!?]\s+)((?:(?:just|finally|officially|recently|also|now)\s+)*)(\p{L}+)\b/giu;
/** Pasts the lexicon lists as adjectives or nouns too. */
const PASTS = new Set(['got', 'left', 'quit', 'sold', 'split', 'broke', 'moved', 'retired', 'married', 'engaged', 'divorced']);

function opensWithPast(word: string): boolean {
  const lower = word.toLowerCase();
  return PASTS.has(lower) || lexiconTag(lower) === 'PastTense';
}

const FIRST_PERSON_WORD = /\b(?:I|[Mm]y|[Mm]e|[Mm]ine|[Mm]yself|[Ww]e)\b|\bI['’](?:m|ve|d|ll)\b/;

export interface SpeakerTurn {
  speaker: string;
  /** The turn's text with its first person rewritten to the speaker. */
  text: string;
}

/** The turn a line holds, or null when the line is not one. */
export function turnOf(line: string): SpeakerTurn | null {
  const m = TURN.exec(line);
  if (!m) return null;
  const speaker = m[1].trim();
  if (LABELS.has(speaker.toLowerCase())) return null;
  // A line that says nothing in the first person is left as written ("Paris: the capital").
  let subjectless = false;
  let text = m[2].replace(SUBJECTLESS, (match: string, opening: string, adverbs: string, word: string) => {
    if (!opensWithPast(word)) return match;
    subjectless = true;
    return `${opening}${speaker} ${(adverbs + word).toLowerCase()}`;
  });
  if (!FIRST_PERSON_WORD.test(m[2]) && !subjectless) return null;
  for (const [form, replace] of FIRST_PERSON) text = text.replace(form, replace(speaker) as string);
  return { speaker, text };
}

const DATE_LINE = /^[ \t]*(?:session[ \t]+)?date[ \t]*:[ \t]*(.+?)[ \t]*$/im;

/**
 * A conversation's own date line ("Session date: 8 May 2023", "Date: 2023-05-08"): the time its
 * turns speak from, when the text names one. `parse` reads the written date (dates.ts).
 */
export function sessionDate(text: string, parse: (written: string) => string | null): Date | undefined {
  const m = DATE_LINE.exec(text);
  const iso = m ? parse(m[1].replace(/[.,;]+$/, '')) : null;
  return iso ? new Date(iso) : undefined;
}

/**
 * The text with every turn's line replaced by its rewritten text (the speaker's name now in
 * it); other lines as they were. A line break stays a line break, so paragraphs do not merge.
 */
export function attributeTurns(text: string): string {
  if (!text.includes(':')) return text;
  return text
    .split('\n')
    .map((line) => {
      const turn = turnOf(line);
      return turn ? ensureSentenceEnd(turn.text) : line;
    })
    .join('\n');
}

/** A turn without closing punctuation would run into the next line's sentence. */
function ensureSentenceEnd(text: string): string {
  return /[.!?…)"'’]\s*$/u.test(text) ? text : `${text.trimEnd()}.`;
}
