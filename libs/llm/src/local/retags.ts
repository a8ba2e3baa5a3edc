import { lexiconTag } from './conjugation';
import { EVENT_VERBS, STATE_VERBS } from './lexicon';
import type { Token } from './nlp';
import { retagHyphenatedGivenNames, retagKindsBeforeTheirNames, retagLettersAndDigitNames } from './name-retags';
import { isSaint, looksCapitalized } from './words';

/**
 * Corrections to compromise's tags of one sentence, each for a reading it gets wrong that the
 * relation rules depend on ("Kwame captains the Lions": "captains" is the verb). Applied in this
 * order by `parseText`; each says the reading it corrects and why.
 */
export function retagSentence(tokens: Token[]): void {
  retagHyphenatedGivenNames(tokens);
  retagLettersAndDigitNames(tokens);
  retagCoordinatedPastVerbs(tokens);
  retagSaintPossessives(tokens);
  retagInitialNamesInIng(tokens);
  retagInitialNamesReadAsVerbs(tokens);
  retagObjectsReadAsVerbs(tokens);
  retagOfficeVerbsReadAsPlurals(tokens);
  retagRemovalParticiples(tokens);
  retagCapitalizedAdverbs(tokens);
  retagHyphenatedModifiers(tokens);
  retagPhrasalGet(tokens);
  retagPossessiveContractions(tokens);
  retagEndingVerbs(tokens);
  retagInfinitives(tokens);
  retagProgressives(tokens);
  retagSetOff(tokens);
  retagAnyMore(tokens);
  retagBackInTime(tokens);
  retagCalledItQuits(tokens);
  retagKindsBeforeTheirNames(tokens);
  retagFollowingAsPreposition(tokens);
  retagFieldGerunds(tokens);
}

const COORDINATORS = new Set(['and', 'then', 'but', 'later']);
/** Past tenses read as adjectives after "and" ("packed up and left Leeds"). */
const IRREGULAR_PASTS = new Set(['left', 'sold', 'quit', 'lost', 'split', 'broke', 'won']);

const WORK_OR_BE = new Set(['work', 'works', 'worked', 'working', 'is', 'are', 'was', 'were', 'am', "'s", "'m"]);

/**
 * "Hannah works in marketing at Unilever", "Raj is in banking": after "in" a gerund names the
 * field one works in, a noun, not the clause's verb ("markets at Unilever").
 */
function retagFieldGerunds(tokens: Token[]): void {
  for (let k = 2; k < tokens.length; k++) {
    const tags = tokens[k].tags as Set<string>;
    if (!tags.has('Gerund') || tokens[k - 1].normal !== 'in' || !WORK_OR_BE.has(tokens[k - 2].normal)) continue;
    for (const tag of ['Verb', 'Gerund', 'PresentTense', 'Infinitive']) tags.delete(tag);
    tags.add('Noun');
    tags.add('Singular');
    const particle = tokens[k - 1].tags as Set<string>;
    particle.delete('Particle');
    particle.delete('PhrasalVerb');
    particle.delete('Verb');
    particle.add('Preposition');
  }
}
const PERFECT_AUXILIARIES = new Set(['has', 'have', 'had']);
const ADVERBS_BETWEEN = new Set(['since', 'just', 'recently', 'now', 'already', 'also', 'finally', 'officially']);

/**
 * compromise reads the second verb of "left Acme and joined Globex" as an adjective ("joined
 * Globex" like "joined hands"), which lost every second event of a sentence. A past-looking
 * word after a coordinator and before a name is the verb of a new clause.
 */
function retagCoordinatedPastVerbs(tokens: Token[]): void {
  for (let k = 1; k + 1 < tokens.length; k++) {
    const tags = tokens[k].tags as Set<string>;
    if (tags.has('Verb') || !tags.has('Adjective') || !(/ed$/.test(tokens[k].normal) || IRREGULAR_PASTS.has(tokens[k].normal))) continue;
    let j = k - 1;
    while (j > 0 && ADVERBS_BETWEEN.has(tokens[j].normal)) j--;
    // "has since joined Anthropic": a perfect tense is a verb too.
    const perfect = PERFECT_AUXILIARIES.has(tokens[j].normal);
    if ((!COORDINATORS.has(tokens[k - 1].normal) && !perfect) || !tokens[k + 1].tags.has('ProperNoun')) continue;
    tags.delete('Adjective');
    tags.add('Verb');
    tags.add('PastTense');
  }
}

/**
 * compromise expands "Mary's" to "Mary is" with an empty copula term, also in "St. Mary's" (a
 * place named after a saint, never "St. Mary is"). After "St. Name's" the empty term is the
 * possessive it was written as: it loses its verb tags, so no clause starts there.
 */
function retagSaintPossessives(tokens: Token[]): void {
  for (let k = 2; k < tokens.length; k++) {
    const elided = tokens[k];
    if (elided.text !== '' || !elided.tags.has('Copula')) continue;
    if (!/['’]s$/.test(tokens[k - 1].text) || !isSaint(tokens[k - 2])) continue;
    const tags = elided.tags as Set<string>;
    tags.clear();
    tags.add('Elided');
  }
}

const VERB_TAGS = ['Verb', 'Copula', 'Auxiliary', 'Modal'];

/**
 * compromise also expands "Amara's" to "Amara is" where the 's is a possessive: "Amara's new
 * flat is in Abuja" has its verb later. A possessor is followed by a noun phrase without a
 * determiner ("new flat") and then the clause's verb; a copula by its complement ("Amara's a
 * doctor", "Amara's happy"). In the first case the empty term goes and the name is possessive.
 */
function retagPossessiveContractions(tokens: Token[]): void {
  for (let k = 1; k < tokens.length; k++) {
    const elided = tokens[k];
    if (elided.text !== '' || !elided.tags.has('Copula') || !/['’]s$/.test(tokens[k - 1].text)) continue;
    let j = k + 1;
    while (
      j < tokens.length &&
      (tokens[j].tags.has('Adjective') || tokens[j].tags.has('Noun') || tokens[j].normal === 'ex') &&
      !tokens[j].tags.has('Pronoun') &&
      !VERB_TAGS.some((tag) => tokens[j].tags.has(tag)) &&
      !/[,;:]/.test(tokens[j - 1].post)
    ) {
      j++;
    }
    const last = tokens[j - 1];
    const verb = tokens[j];
    const verbAfter = last.tags.has('Noun') && verb !== undefined && VERB_TAGS.some((tag) => verb.tags.has(tag)) && !verb.tags.has('Gerund');
    // "Theo is Dr. Patel's patient": the clause has its verb already, so the 's is no second one.
    const verbBefore = j === tokens.length || /[.;:!?]/.test(last.post) ? clauseHasCopula(tokens, k - 1) : false;
    if (j === k + 1 || (!verbAfter && !verbBefore)) continue;
    const tags = elided.tags as Set<string>;
    tags.clear();
    tags.add('Elided');
    (tokens[k - 1].tags as Set<string>).add('Possessive');
    // After a possessive the last word is a noun ("patient", not the adjective).
    if (!last.tags.has('Noun')) (last.tags as Set<string>).add('Noun');
  }
}

/** A copula between the start of the clause and `before` ("Theo is …"; not "I think Tom's happy"). */
function clauseHasCopula(tokens: Token[], before: number): boolean {
  for (let i = before - 1; i >= 0; i--) {
    const t = tokens[i];
    if (/[,;:]/.test(t.post) || ['and', 'but', 'or', 'who', 'which', 'that', 'because', 'while', 'when'].includes(t.normal)) return false;
    if (t.tags.has('Copula') && t.text !== '') return true;
  }
  return false;
}

/**
 * "Xiaoming lives in Chengdu": compromise reads a capitalized word in -ing that starts a
 * sentence as a gerund. When no verb of the lexicon is its stem and a verb follows, it is a name.
 */
function retagInitialNamesInIng(tokens: Token[]): void {
  const first = tokens[0];
  const next = tokens[1];
  if (!first || !next || !first.tags.has('Gerund') || !/^\p{Lu}/u.test(first.text) || !/ing$/.test(first.normal)) return;
  if (!next.tags.has('Verb') && !next.tags.has('Copula') && !next.tags.has('Auxiliary')) return;
  const stem = first.normal.slice(0, -3);
  const stems = [stem, `${stem}e`, stem.replace(/(.)\1$/, '$1')];
  if (stems.some((word) => stem.length > 0 && lexiconTag(word) !== undefined)) return;
  const tags = first.tags as Set<string>;
  tags.clear();
  for (const tag of ['Noun', 'Singular', 'ProperNoun']) tags.add(tag);
}

/** Adverbs that stand between a clause's subject and its verb ("Jack now lives in York"). */
const SUBJECT_ADVERBS = new Set([...ADVERBS_BETWEEN, 'still', 'currently', 'later', 'then', 'eventually', 'once', 'never', 'no', 'longer']);

/**
 * "Jack now lives in York", "Mark also works at Acme", "Will recently moved to Leeds": a given
 * name that is also a verb, starting a sentence, is read as an imperative. An imperative is not
 * followed by a finite verb ("lives", "moved"), so a capitalized verb before adverbs and a verb
 * in the present's third person or the past is the clause's subject, a name.
 */
function retagInitialNamesReadAsVerbs(tokens: Token[]): void {
  const first = tokens[0];
  if (!first || !/^\p{Lu}\p{Ll}+$/u.test(first.text) || !(first.tags.has('Verb') || first.tags.has('Modal')) || /[,;:]/.test(first.post)) return;
  let j = 1;
  while (j < tokens.length && (tokens[j].tags.has('Adverb') || SUBJECT_ADVERBS.has(tokens[j].normal)) && !/[,;:]/.test(tokens[j].post)) j++;
  const verb = tokens[j];
  if (!verb || verb.tags.has('Infinitive') || verb.tags.has('Gerund')) return;
  const thirdPerson = verb.tags.has('PresentTense') && /[^s]s$/.test(verb.normal);
  const givenName = GIVEN_NAME_TAGS.has(lexiconTag(first.normal) ?? '') || first.tags.has('Modal');
  // ("Will works at Lidl": no adverb between; a modal or a given name before a finite verb.)
  if (j === 1 && !(givenName && (thirdPerson || verb.tags.has('PastTense')))) return;
  const finite = verb.tags.has('Verb') && (verb.tags.has('PastTense') || thirdPerson);
  // "Mark also works at Acme": after the misread name the verb is read as a plural noun; the
  // lexicon knows the word as a given name.
  const misreadVerb = !verb.tags.has('Verb') && verb.tags.has('Plural') && /s$/.test(verb.normal) && givenName;
  if (!finite && !misreadVerb) return;
  const tags = first.tags as Set<string>;
  tags.clear();
  for (const tag of ['Noun', 'Singular', 'ProperNoun']) tags.add(tag);
  if (misreadVerb) {
    const verbTags = verb.tags as Set<string>;
    verbTags.clear();
    for (const tag of ['Verb', 'PresentTense']) verbTags.add(tag);
  }
}

const GIVEN_NAME_TAGS = new Set(['FirstName', 'MaleName', 'FemaleName']);

const GET_FORMS = new Set(['get', 'gets', 'got', 'gotten', 'getting']);

/** "Lou got out of Belmarsh", "got away from": "get" before its particle is the verb, not a passive's auxiliary. */
function retagPhrasalGet(tokens: Token[]): void {
  for (let k = 0; k + 2 < tokens.length; k++) {
    const get = tokens[k];
    if (!GET_FORMS.has(get.normal) || !get.tags.has('Auxiliary') || !tokens[k + 1].tags.has('Particle') || !['of', 'from'].includes(tokens[k + 2].normal)) continue;
    const tags = get.tags as Set<string>;
    tags.delete('Auxiliary');
    tags.add('Verb');
    if (get.normal === 'got' || get.normal === 'gotten') tags.add('PastTense');
  }
}

/**
 * "Dan plays drums in The Foxes", "Mia teaches yoga at …": compromise reads a plural noun right
 * after a verb in the present's third person as a second verb. Two finite verbs do not follow
 * each other in a clause: the second is the first one's object.
 */
function retagObjectsReadAsVerbs(tokens: Token[]): void {
  for (let k = 1; k < tokens.length; k++) {
    const verb = tokens[k - 1];
    const word = tokens[k];
    const thirdPerson = (t: Token) => t.tags.has('Verb') && t.tags.has('PresentTense') && !t.tags.has('Auxiliary') && !t.tags.has('Copula') && !t.tags.has('Modal') && /[^s]s$/.test(t.normal);
    if (!thirdPerson(verb) || !thirdPerson(word) || /[,;:]/.test(verb.post) || !/^\p{Ll}/u.test(word.text)) continue;
    const tags = word.tags as Set<string>;
    tags.clear();
    for (const tag of ['Noun', 'Plural']) tags.add(tag);
  }
}

/**
 * "Northgate High has a new principal": compromise reads a capitalized word after a name as an
 * adverb. Inside a sentence the capital says it is part of the name.
 */
function retagCapitalizedAdverbs(tokens: Token[]): void {
  for (let k = 1; k < tokens.length; k++) {
    const tags = tokens[k].tags as Set<string>;
    const previous = tokens[k - 1];
    if (!tags.has('Adverb') || !/^\p{Lu}\p{Ll}+$/u.test(tokens[k].text) || !previous.tags.has('ProperNoun') || /[^\s]/.test(previous.post)) continue;
    tags.delete('Adverb');
    for (const tag of ['Noun', 'Singular', 'ProperNoun']) tags.add(tag);
  }
}

/**
 * "a paid-up member", "a well-known chef": words joined by a hyphen between a determiner and a
 * noun are one adjective, not a verb group of their own ("is a paid up").
 */
function retagHyphenatedModifiers(tokens: Token[]): void {
  for (let k = 1; k + 1 < tokens.length; k++) {
    if (!tokens[k].tags.has('Hyphenated') || !/^-$/.test(tokens[k].post) || !tokens[k - 1].tags.has('Determiner')) continue;
    let last = k + 1;
    while (last + 1 < tokens.length && /^-$/.test(tokens[last].post)) last++;
    if (!tokens[last + 1]?.tags.has('Noun')) continue;
    for (let i = k; i <= last; i++) {
      const tags = tokens[i].tags as Set<string>;
      for (const tag of ['Verb', 'PastTense', 'PresentTense', 'PhrasalVerb', 'Particle', 'Infinitive', 'Participle', 'Gerund']) tags.delete(tag);
      tags.add('Adjective');
    }
    k = last;
  }
}

/** Participles of losing an office that compromise reads as adjectives after "was" ("was stripped of"). */
const REMOVAL_PARTICIPLES = new Set(['stripped', 'ousted', 'deposed', 'axed', 'sacked', 'dropped', 'cut']);
const BE_WORDS = new Set(['is', 'was', 'were', 'are', 'been', 'be', 'being']);

function retagRemovalParticiples(tokens: Token[]): void {
  for (let k = 1; k < tokens.length; k++) {
    const tags = tokens[k].tags as Set<string>;
    if (tags.has('Verb') || !REMOVAL_PARTICIPLES.has(tokens[k].normal) || !BE_WORDS.has(tokens[k - 1].normal)) continue;
    tags.delete('Adjective');
    for (const tag of ['Verb', 'PastTense', 'Participle']) tags.add(tag);
  }
}

/** Verbs of holding an office or a thing that English also uses as nouns ("captains", "chairs"). */
const OFFICE_VERBS_AS_NOUNS = new Set(['captain', 'chair', 'coach', 'head', 'skipper', 'host', 'front', 'run', 'own', 'lead', 'manage']);
const OBJECT_OPENERS = new Set(['the', 'a', 'an', 'its', 'his', 'her', 'their', 'our', 'my']);

/**
 * "Kwame captains the Lions", "Helen chairs the board": after a name and before the object's
 * determiner, compromise reads the verb as a plural noun ("captains"). A name, then such a word,
 * then a noun phrase is a clause.
 */
function retagOfficeVerbsReadAsPlurals(tokens: Token[]): void {
  for (let k = 1; k + 1 < tokens.length; k++) {
    const name = tokens[k - 1];
    const word = tokens[k];
    if (!looksCapitalized(name.text) || !name.tags.has('Noun') || /[,;:]/.test(name.post) || word.tags.has('Verb')) continue;
    const stem = [word.normal.slice(0, -1), word.normal.slice(0, -2)].find((w) => OFFICE_VERBS_AS_NOUNS.has(w));
    if (!word.tags.has('Plural') || !/s$/.test(word.normal) || !stem || !OBJECT_OPENERS.has(tokens[k + 1].normal)) continue;
    const tags = word.tags as Set<string>;
    tags.clear();
    for (const tag of ['Verb', 'PresentTense']) tags.add(tag);
    const nameTags = name.tags as Set<string>;
    if (!nameTags.has('ProperNoun')) nameTags.add('ProperNoun');
  }
}

/** Verbs that end a state, which compromise reads as adjectives after a noun ("membership lapsed"). */
const ENDING_PARTICIPLES = new Set(['lapsed', 'expired', 'ended', 'finished', 'concluded', 'terminated']);

/** "Olga's membership of the club lapsed.": after a noun, at the end of its clause, the word is the verb. */
function retagEndingVerbs(tokens: Token[]): void {
  for (let k = 1; k < tokens.length; k++) {
    const tags = tokens[k].tags as Set<string>;
    if (tags.has('Verb') || !ENDING_PARTICIPLES.has(tokens[k].normal) || !tokens[k - 1].tags.has('Noun') || /[,;:]/.test(tokens[k - 1].post)) continue;
    const next = tokens[k + 1];
    if (next && !/[.!?;]/.test(tokens[k].post) && !next.tags.has('Preposition') && !next.tags.has('Date') && !next.tags.has('Adverb')) continue;
    tags.delete('Adjective');
    tags.add('Verb');
    tags.add('PastTense');
  }
}

const HOMEWARD_VERBS = new Set(['moved', 'move', 'moves', 'went', 'go', 'goes', 'came', 'come', 'comes', 'returned', 'headed', 'flew', 'moving', 'going', 'coming']);

/** Verbs compromise reads as nouns after "to" ("went to work for Meta", "moved there to study at Bonn"). */
const NOUN_LIKE_VERBS = new Set(['work', 'study', 'live', 'play', 'teach', 'train']);

/** "to work for", "to study at": after "to" and before a preposition the word is the verb. */
function retagInfinitives(tokens: Token[]): void {
  for (let k = 1; k < tokens.length; k++) {
    const tags = tokens[k].tags as Set<string>;
    // "Sam and Jo have split", "Mia moved home to Dublin".
    if (tokens[k].normal === 'split' && !tags.has('Verb') && PERFECT_AUXILIARIES.has(tokens[k - 1].normal)) {
      tags.clear();
      for (const tag of ['Verb', 'PastTense']) tags.add(tag);
    }
    if (tokens[k].normal === 'home' && HOMEWARD_VERBS.has(tokens[k - 1].normal)) {
      tags.clear();
      tags.add('Adverb');
    }
  }
  for (let k = 1; k + 1 < tokens.length; k++) {
    const tags = tokens[k].tags as Set<string>;
    if (tags.has('Verb') || tokens[k - 1].normal !== 'to' || !NOUN_LIKE_VERBS.has(tokens[k].normal) || !tokens[k + 1].tags.has('Preposition')) continue;
    tags.delete('Noun');
    tags.delete('Singular');
    tags.add('Verb');
    tags.add('Infinitive');
  }
}

const PROGRESSIVE_VERBS = new Set(['stay', 'train', 'volunteer', 'see']);
const BE = new Set(['is', 'are', 'was', 'were', 'be', 'been', "'s", "'re"]);

/**
 * compromise reads "living" in "is living in Marseille" as an adjective ("a living room"): a
 * word in -ing after a form of "be" and before a preposition, whose stem the lexicon knows as a
 * verb, is the progressive of that verb.
 */
function retagProgressives(tokens: Token[]): void {
  for (let k = 1; k + 1 < tokens.length; k++) {
    const tags = tokens[k].tags as Set<string>;
    if (tags.has('Verb') || !/ing$/.test(tokens[k].normal)) continue;
    let j = k - 1;
    while (j > 0 && tokens[j].tags.has('Adverb')) j--;
    if (!BE.has(tokens[j].normal) || !tokens[k + 1].tags.has('Preposition')) continue;
    const stem = tokens[k].normal.replace(/ing$/, '');
    if (![stem, `${stem}e`].some((word) => STATE_VERBS.has(word) || EVENT_VERBS.has(word) || PROGRESSIVE_VERBS.has(word))) continue;
    tags.delete('Adjective');
    tags.delete('Noun');
    tags.add('Verb');
    tags.add('Gerund');
  }
}

/** "The Sea Swift set sail for Cherbourg", "Tom set off for Leeds": after a name, "set" is the verb, not a noun. */
function retagSetOff(tokens: Token[]): void {
  for (let k = 1; k + 1 < tokens.length; k++) {
    const tags = tokens[k].tags as Set<string>;
    if (tokens[k].normal !== 'set' || tags.has('Verb') || !['sail', 'off', 'out'].includes(tokens[k + 1].normal) || !looksCapitalized(tokens[k - 1].text)) continue;
    tags.delete('Noun');
    tags.delete('Singular');
    for (const tag of ['Verb', 'PastTense']) tags.add(tag);
  }
}

/** "They aren't together any more": at the end of a clause, "any more" is the adverb "anymore", not an object. */
function retagAnyMore(tokens: Token[]): void {
  for (let k = 0; k + 1 < tokens.length; k++) {
    if (tokens[k].normal !== 'any' || tokens[k + 1].normal !== 'more') continue;
    const after = tokens[k + 2];
    if (after !== undefined && !/[,;:.!?]/.test(tokens[k + 1].post) && !after.tags.has('Preposition') && !after.tags.has('Date')) continue;
    for (const token of [tokens[k], tokens[k + 1]]) {
      const tags = token.tags as Set<string>;
      tags.clear();
      tags.add('Adverb');
    }
  }
}

/**
 * "stood down back in 2012", "back then": before a date "back" is an adverb of time, not the
 * phrasal verb "back in" (which would make the date its clause's and not the event's).
 */
function retagBackInTime(tokens: Token[]): void {
  for (let k = 1; k + 1 < tokens.length; k++) {
    if (tokens[k].normal !== 'back') continue;
    const next = tokens[k + 1];
    const dated = next.normal === 'then' || (['in', 'on', 'at', 'during'].includes(next.normal) && tokens[k + 2]?.tags.has('Date') === true);
    if (!dated) continue;
    for (const token of next.normal === 'then' ? [tokens[k]] : [tokens[k], next]) {
      const tags = token.tags as Set<string>;
      tags.clear();
      tags.add(token === tokens[k] ? 'Adverb' : 'Preposition');
    }
  }
}

/** "called it quits (at IKEA)": the idiom's "quits" is a noun, not a verb with "it" for its subject. */
function retagCalledItQuits(tokens: Token[]): void {
  for (let k = 2; k < tokens.length; k++) {
    if (tokens[k].normal !== 'quits' || tokens[k - 1].normal !== 'it' || !/^call/.test(tokens[k - 2].normal)) continue;
    const tags = tokens[k].tags as Set<string>;
    tags.clear();
    for (const tag of ['Noun', 'Singular']) tags.add(tag);
  }
}

const FOLLOWED_OPENERS = new Set(['a', 'an', 'the', 'his', 'her', 'their', 'its', 'our', 'my', 'this', 'that', 'months', 'years', 'weeks']);

/**
 * "was expelled by Ilkley Rotary Club following a dispute": after a clause, "following" + a
 * noun phrase is the preposition ("after"), not a verb whose subject is the name before it
 * ("is following the news" keeps its verb).
 */
function retagFollowingAsPreposition(tokens: Token[]): void {
  for (let k = 1; k + 1 < tokens.length; k++) {
    if (tokens[k].normal !== 'following' || !FOLLOWED_OPENERS.has(tokens[k + 1].normal)) continue;
    if (BE_WORDS.has(tokens[k - 1].normal) || tokens[k - 1].tags.has('Auxiliary') || tokens[k - 1].tags.has('Determiner')) continue;
    const tags = tokens[k].tags as Set<string>;
    tags.clear();
    tags.add('Preposition');
  }
}
