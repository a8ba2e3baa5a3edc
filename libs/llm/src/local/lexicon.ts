/**
 * Word lists shared by the local extractor, keywords and summaries. English only: the NLP
 * library the local provider relies on is English-only too.
 */

export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but nor so yet if then else than that this these those there here ' +
    'i me my mine myself we us our ours ourselves you your yours yourself yourselves ' +
    'he him his himself she her hers herself it its itself they them their theirs themselves ' +
    'what which who whom whose where when why how whatever whoever whichever ' +
    'am is are was were be been being have has had having do does did doing done ' +
    'will would shall should can could may might must ought ' +
    'at by for from in into of off on onto out over to under up down with within without ' +
    'about above across after against along among around as before behind below beneath beside ' +
    'between beyond during except inside near since through throughout toward towards until upon via ' +
    'not no nor only own same too very just also still already ever even again once ' +
    'all any both each every few more most other some such many much several ' +
    'one ones something anything nothing everything someone anyone everyone somebody anybody ' +
    "s t don't doesn't didn't isn't aren't wasn't weren't won't can't cannot " +
    'please tell know let show give find say said get got like would'
  ).split(/\s+/),
);

/** Pronouns are never entities (they would merge every "she" in a tenant's graph into one node). */
export const PRONOUNS: ReadonlySet<string> = new Set(
  (
    'i me my mine myself we us our ours ourselves you your yours yourself yourselves ' +
    'he him his himself she her hers herself it its itself they them their theirs themselves ' +
    'this that these those who whom whose which what someone somebody everyone everybody anyone ' +
    'anybody nobody noone one'
  ).split(/\s+/),
);

/** Prepositions that turn "verb + prep + object" into the `verb_prep` predicate. */
export const RELATION_PREPOSITIONS: ReadonlySet<string> = new Set(
  (
    'at in on to from for with by of into onto about under near across through via over ' +
    'against among alongside behind beside toward towards upon inside outside within'
  ).split(/\s+/),
);

/**
 * Prepositions after which a name is a circumstance, not an object of the verb
 * ("moved to Paris after Google" is not a relation to Google).
 */
export const BLOCKING_PREPOSITIONS: ReadonlySet<string> = new Set(
  'after before during since until till despite than like unlike as per except besides including'.split(/\s+/),
);

/** Words that open a new clause: the object of a verb never lies past one. */
export const CLAUSE_BREAKERS: ReadonlySet<string> = new Set(
  (
    'who whom whose which that where when while whereas because although though but so if unless ' +
    'however therefore whether'
  ).split(/\s+/),
);

export const RELATIVE_PRONOUNS: ReadonlySet<string> = new Set(['who', 'which', 'that', 'whom']);

export const BE_FORMS: ReadonlySet<string> = new Set(['be', 'is', 'are', 'was', 'were', 'been', 'being', 'am', "isn't", "aren't", "wasn't", "weren't"]);

/** Titles dropped from person names, so "Dr. Emily Chen" and "Emily Chen" are one entity. */
export const HONORIFICS: ReadonlySet<string> = new Set(
  'mr mrs ms miss mx dr prof professor sir dame lady lord rev fr sr jr st mister madam'.split(/\s+/),
);

/** Lowercase words allowed inside a name ("Bank of America", "Ludwig van Beethoven"). */
export const NAME_CONNECTORS: ReadonlySet<string> = new Set(
  'of de del della der den van von la le du da di y and & for the al bin'.split(/\s+/),
);

/**
 * Verbs that describe a lasting state: their predicate is the present tense whatever the tense
 * of the text ("worked at" and "works at" are both `works_at`), so that the graph holds one
 * predicate per kind of fact and temporal supersession can compare them.
 */
export const STATE_VERBS: ReadonlySet<string> = new Set(
  (
    'work live reside study teach own lead manage run head direct chair know love like hate prefer ' +
    'enjoy belong report speak play serve use support want need contain include employ operate ' +
    'represent coach attend follow admire trust sponsor advise mentor supervise oversee control ' +
    'produce sell offer provide make develop design research date'
  ).split(/\s+/),
);

/** Verbs that describe an event: their predicate is the past tense (`founded`, `moved_to`). */
export const EVENT_VERBS: ReadonlySet<string> = new Set(
  (
    'found co-found cofound join leave move acquire marry meet visit buy launch start create establish ' +
    'hire graduate die win invent release publish sign divorce retire resign quit merge announce ' +
    'open close relocate travel return receive award appoint elect promote fire build write ' +
    'name rename invest fund sue purchase introduce discover'
  ).split(/\s+/),
);

/** Verbs whose object is an organization when the library could not type it ("joined Acme"). */
export const ORGANIZATION_OBJECT_VERBS: ReadonlySet<string> = new Set(
  'join leave acquire found co-found cofound work quit buy purchase invest fund manage lead run head merge'.split(
    /\s+/,
  ),
);

/** Verbs whose subject is an organization when the library could not type it ("Globex acquired ..."). */
export const ORGANIZATION_SUBJECT_VERBS: ReadonlySet<string> = new Set(
  'acquire hire employ launch release announce merge invest fund sponsor'.split(/\s+/),
);

/** Verbs (+ a preposition) whose object is a place ("moved to Lyon", "lives in Oslo"). */
export const LOCATION_OBJECT_VERBS: ReadonlySet<string> = new Set(
  'move live reside relocate travel visit bear born base locate grow raise settle emigrate immigrate'.split(/\s+/),
);

/** Roles: "X is the CEO of Y" makes Y an organization. */
export const ROLE_NOUNS: ReadonlySet<string> = new Set(
  (
    'ceo cto cfo coo cio founder cofounder co-founder president vice-president chairman chairwoman chair director ' +
    'head manager employee member engineer researcher professor student owner partner investor advisor ' +
    'consultant intern developer designer scientist lecturer analyst officer executive shareholder'
  ).split(/\s+/),
);

/** Verbs that carry no fact on their own: no relation is built from them. */
export const LIGHT_VERBS: ReadonlySet<string> = new Set(['have', 'do', 'get', 'be', 'say', 'tell', 'let', 'seem', 'become']);

/** The theme of a verb or noun, as a noun: high-level keywords and relation keywords. */
export const THEMES: Readonly<Record<string, string>> = {
  work: 'employment',
  employ: 'employment',
  hire: 'employment',
  join: 'employment',
  job: 'employment',
  career: 'employment',
  employer: 'employment',
  leave: 'departure',
  quit: 'departure',
  resign: 'departure',
  retire: 'retirement',
  live: 'residence',
  reside: 'residence',
  home: 'residence',
  move: 'relocation',
  relocate: 'relocation',
  bear: 'birth',
  born: 'birth',
  found: 'founding',
  cofound: 'founding',
  'co-found': 'founding',
  establish: 'founding',
  create: 'creation',
  acquire: 'acquisition',
  buy: 'purchase',
  purchase: 'purchase',
  sell: 'sales',
  merge: 'merger',
  marry: 'marriage',
  wife: 'marriage',
  husband: 'marriage',
  divorce: 'divorce',
  study: 'education',
  graduate: 'education',
  teach: 'education',
  school: 'education',
  university: 'education',
  own: 'ownership',
  lead: 'leadership',
  head: 'leadership',
  manage: 'management',
  run: 'management',
  invest: 'investment',
  fund: 'funding',
  partner: 'partnership',
  visit: 'travel',
  travel: 'travel',
  meet: 'meeting',
  launch: 'launch',
  release: 'release',
  publish: 'publication',
  write: 'writing',
  invent: 'invention',
  develop: 'development',
  build: 'construction',
  win: 'award',
  award: 'award',
  die: 'death',
  sue: 'litigation',
  locate: 'location',
  base: 'location',
  love: 'relationship',
  date: 'relationship',
  friend: 'friendship',
  like: 'preference',
  prefer: 'preference',
  enjoy: 'preference',
  hobby: 'hobbies',
  use: 'usage',
  cost: 'price',
  price: 'price',
  pay: 'payment',
  salary: 'compensation',
  ceo: 'leadership',
  president: 'leadership',
  chairman: 'leadership',
  director: 'leadership',
  founder: 'founding',
  cofounder: 'founding',
  employee: 'employment',
  engineer: 'employment',
  researcher: 'research',
  research: 'research',
  professor: 'education',
  student: 'education',
  member: 'membership',
  capital: 'geography',
};

/** Themes implied by the question word. */
export const QUESTION_THEMES: Readonly<Record<string, string>> = {
  where: 'location',
  when: 'time',
  why: 'reason',
};

/** Nouns too vague to be a concept entity or a theme of their own ("there" and "here": the tagger may read them as nouns). */
export const VAGUE_NOUNS: ReadonlySet<string> = new Set(
  (
    'thing things stuff lot lots kind kinds sort way ways time times day days year years month months ' +
    'week weeks people person part parts place places number numbers bit piece one ones fact facts ' +
    'information info something anything everything nothing case cases point points example examples there here'
  ).split(/\s+/),
);

/** A plural noun's singular, by the regular rules (irregular plurals stay as they are). */
export function singularNoun(word: string): string {
  if (/ies$/.test(word) && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:ss|us|is)$/.test(word)) return word;
  if (/(?:ch|sh|x)es$/.test(word)) return word.slice(0, -2);
  if (/s$/.test(word) && word.length > 3) return word.slice(0, -1);
  return word;
}

/** The head nouns of a body or an institution one belongs to, works or volunteers at. */
export const BODY_HEADS: ReadonlySet<string> = new Set(
  'committee union club board council society association charity bank museum choir band orchestra team league library hospital school'.split(' '),
);
