import { compromise } from './compromise';
import type { Token } from './nlp';

/**
 * compromise's lexicon and verb tables, reached through its world (internal methods: the specs
 * in nlp.spec.ts pin their behaviour).
 */

interface VerbTransforms {
  toInfinitive(word: string, model: unknown, tense?: string): string;
  conjugate(infinitive: string, model: unknown): Record<string, string | undefined>;
}

interface World {
  model: { one?: { lexicon?: Record<string, string | string[] | undefined> } } & Record<string, unknown>;
  methods?: { two?: { transform?: { verb?: VerbTransforms } } };
}

let loadedWorld: World | undefined;

/** compromise's world (model and internal methods), from the library once it is loaded. */
function world(): World {
  loadedWorld ??= compromise().world() as World;
  return loadedWorld;
}

const verbTransformsOf = (w: World) => w.methods?.two?.transform?.verb;

/**
 * The tag compromise's own lexicon gives a lowercase word, if it lists it (`Uncountable` for
 * "water", `Singular` for "time", `FemaleName` for "maria"); undefined for a word it only
 * tags by rule ("kwame", "globex").
 */
export function lexiconTag(word: string): string | undefined {
  const entry = world().model.one?.lexicon?.[word];
  return Array.isArray(entry) ? entry[0] : entry;
}

// A gerund is tagged PresentTense too: as a gerund "working" → "work" (as a present it stays "working").
const TENSE_TAGS = ['Gerund', 'PastTense', 'PresentTense', 'Infinitive', 'Participle'];

/**
 * The infinitive of a verb token, through compromise's own conjugation tables (an internal
 * method, reached through `world()`; the specs pin its behaviour). Falls back to the word.
 */
export function verbLemma(token: Token): string {
  const word = token.normal;
  const verbTransforms = verbTransformsOf(world());
  if (!verbTransforms) return word;
  const tense = TENSE_TAGS.find((t) => token.tags.has(t));
  if (tense === 'Infinitive') return word;
  const infinitive = (as: string | undefined) => {
    try {
      return verbTransforms.toInfinitive(word, world().model, as) || word;
    } catch {
      return word;
    }
  };
  if (IRREGULAR_PARTICIPLES[word]) return IRREGULAR_PARTICIPLES[word];
  let lemma = infinitive(tense);
  // "taken", "given": the past tense table does not know participles.
  if (lemma === word && token.tags.has('Participle')) lemma = infinitive('Participle');
  // A verb the tables do not know ("moored"): the regular past.
  if (lemma === word && /[^e]ed$/.test(word) && (token.tags.has('PastTense') || token.tags.has('Participle'))) {
    const stem = word.slice(0, -2);
    lemma = lexiconTag(`${stem}e`) === 'Infinitive' && lexiconTag(stem) !== 'Infinitive' ? `${stem}e` : stem;
  }
  return lemma;
}

/** Participles and pasts the conjugation tables turn into non-words ("gone" → "gin", "rehomed" → "rehom"). */
const IRREGULAR_PARTICIPLES: Readonly<Record<string, string>> = { gone: 'go', been: 'be', done: 'do', seen: 'see', rehomed: 'rehome', broken: 'break' };

const conjugations = new Map<string, Record<string, string | undefined>>();

/** Present (third person) and past forms of an infinitive. */
export function verbForms(infinitive: string): { present: string; past: string } {
  let forms = conjugations.get(infinitive);
  if (!forms) {
    try {
      forms = verbTransformsOf(world())?.conjugate(infinitive, world().model) ?? {};
    } catch {
      forms = {};
    }
    conjugations.set(infinitive, forms);
  }
  return { present: forms.PresentTense ?? infinitive, past: forms.PastTense ?? infinitive };
}
