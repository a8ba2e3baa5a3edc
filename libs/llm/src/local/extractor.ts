import type { ExtractedEnding, ExtractedEntity, ExtractedRelation, Extraction } from '../tasks.types';
import { dateNames, findDates, parseExplicitDate, type DateSpan } from './dates';
import { attributeTurns, sessionDate } from './speaker-turns';
import { findMentions, nameWords, type Mention } from './mentions';
import { parseText, type ParsedText } from './nlp';
import { placeProFormMentions } from './place-pro-forms';
import { pronounMentions, type PersonMemory } from './pronouns';
import { extractSentenceRelations, type EndingCandidate, type RelationCandidate } from './relations';
import { splitParagraphs, truncateText } from './sentences';

/**
 * The offline extractor: entities and facts from plain English with an NLP library
 * (compromise + compromise-dates), no model call.
 *
 * - Entities: people, organizations and places as the library types them; other proper nouns
 *   (typed from the verb that links them when it can: the object of "joined" is an
 *   organization, else `concept`); common-noun objects without an article ("studies machine
 *   learning" → `concept`); dates that name their year (`date`). The description is the
 *   sentence the entity first appears in. Titles ("Dr.") and possessives are dropped; a first
 *   name or a shorter company name that matches exactly one fuller name in the same text is
 *   merged into it ("Alice" → "Alice Johnson", "Acme" → "Acme Corporation"). Pronouns are
 *   never entities.
 * - Relations: subject–verb–object patterns inside one sentence (see `relations.ts`), plus
 *   `located_in` for "City, Country". `valid_at` / `invalid_at` come from a date of the same
 *   sentence (see `dates.ts`). "Alice left Acme in 2024" gives `left` with `valid_at` 2024: the
 *   event is recorded, and closing an earlier `works_at` is left to temporal supersession.
 *
 * Deterministic: the same text (and reference date) always gives the same extraction.
 */

export interface LocalExtractOptions {
  /**
   * When the text was written (the document date): resolves "last year" or "in March", and is
   * the `invalid_at` of a fact the text says is over without saying when ("no longer works").
   * Without it only dates that name their year are used.
   */
  referenceDate?: Date;
}

const DESCRIPTION_CHARS = 300;
const TYPE_RANK: Record<string, number> = { person: 3, organization: 3, location: 3, date: 2, concept: 1 };

interface Occurrence {
  name: string;
  type: string;
  sentence: number;
  start: number;
  description: string;
}

export function extractLocally(text: string, given: LocalExtractOptions = {}): Extraction {
  // A session's own date line says when its turns were spoken ("yesterday" is the day before it).
  const options = { ...given, referenceDate: sessionDate(text, parseExplicitDate) ?? given.referenceDate };
  const occurrences: Occurrence[] = [];
  const candidates: RelationCandidate[] = [];
  const endingCandidates: EndingCandidate[] = [];
  const sentenceText = new Map<number, string>();
  let sentenceOffset = 0;
  const blocks: ParsedText[] = [];
  // "Caroline: I went…" turns state facts about their speaker (speaker-turns.ts).
  for (const block of splitParagraphs(attributeTurns(text))) {
    const parsed = parseText(block, sentenceOffset);
    sentenceOffset += parsed.sentences.length;
    for (const s of parsed.sentences) sentenceText.set(s.index, s.text);
    blocks.push(parsed);
  }
  const knownNames = new Set<string>();
  for (const parsed of blocks) nameWords(parsed, knownNames);
  const memory: PersonMemory = { people: [] };
  for (const parsed of blocks) extractBlock(parsed, options, knownNames, occurrences, candidates, sentenceText, memory, endingCandidates);
  const describe = (sentence: number) => truncateText(sentenceText.get(sentence) ?? '', DESCRIPTION_CHARS);

  const entities = mergeEntities(occurrences);
  const alias = aliases(entities);
  const finalEntities = entities.filter((e) => !alias.has(e.name.toLowerCase()));
  const resolve = (name: string) => alias.get(name.toLowerCase()) ?? canonical(entities, name);

  const relations: ExtractedRelation[] = [];
  const seen = new Set<string>();
  for (const c of candidates) {
    const source = resolve(c.source.name);
    const target = resolve(c.target.name);
    if (source.toLowerCase() === target.toLowerCase()) continue;
    const key = [source, c.relation, target, c.validAt, c.invalidAt].join('\u0000').toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    relations.push({
      source,
      target,
      relation: c.relation,
      description: describe(c.sentence),
      keywords: c.keywords,
      valid_at: c.validAt,
      invalid_at: c.invalidAt,
      ...(c.alongside ? { alongside: true } : {}),
    });
  }
  const endings: ExtractedEnding[] = [];
  for (const e of endingCandidates) {
    const subject = resolve(e.subject.name);
    if (endings.some((x) => x.subject === subject && x.relation === e.relation)) continue;
    endings.push({ subject, relation: e.relation, description: describe(e.sentence), valid_at: e.validAt, ...(e.noun ? { noun: e.noun } : {}) });
  }
  return { entities: finalEntities, relations, ...(endings.length > 0 ? { endings } : {}) };
}

function extractBlock(
  parsed: ParsedText,
  options: LocalExtractOptions,
  knownNames: ReadonlySet<string>,
  occurrences: Occurrence[],
  candidates: RelationCandidate[],
  sentenceText: Map<number, string>,
  memory: PersonMemory,
  endings: EndingCandidate[],
): void {
  const dates = findDates(parsed, options.referenceDate);
  const dateTokens = new Set<number>();
  for (const d of dates) for (let i = d.start; i < d.end; i++) dateTokens.add(i);
  // A description outlives the day it was written on: "yesterday" is given its date.
  for (const d of dates) {
    const written = sentenceText.get(d.sentence);
    if (written !== undefined) sentenceText.set(d.sentence, withAbsoluteDate(written, d));
  }
  const named = findMentions(parsed, (i) => dateTokens.has(i), knownNames);
  // "She quit in May": a pronoun is the person it stands for, and its sentence says who
  // ("She (Sofia) quit in May"), so a fact's description names both its ends.
  // ("moved there": the place it stands for, the same way.)
  const pronouns = [...pronounMentions(parsed, named, memory), ...placeProFormMentions(parsed, named)];
  const mentions = [...named, ...pronouns].sort((a, b) => a.start - b.start);
  for (const sentence of parsed.sentences) {
    const written = sentenceText.get(sentence.index);
    const here = pronouns.filter((m) => m.sentence === sentence.index);
    if (written !== undefined && here.length > 0) sentenceText.set(sentence.index, withNamedPronouns(written, here.map((m) => ({ word: parsed.tokens[m.start].text, name: m.name }))));
  }
  const describe = (sentence: number) => truncateText(sentenceText.get(sentence) ?? '', DESCRIPTION_CHARS);

  const concepts: Mention[] = [];
  for (const sentence of parsed.sentences) {
    const found = extractSentenceRelations({
      sentence,
      mentions: mentions.filter((m) => m.sentence === sentence.index),
      dates: dates.filter((d) => d.sentence === sentence.index),
      referenceDate: options.referenceDate,
    });
    candidates.push(...found.relations);
    endings.push(...found.endings);
    concepts.push(...found.concepts.filter((c) => found.relations.some((r) => r.target === c || r.source === c)));
    candidates.push(...locatedIn(mentions.filter((m) => m.sentence === sentence.index), parsed));
  }

  // Types are read after the relations, which may have retyped a mention.
  for (const m of [...mentions, ...concepts]) {
    occurrences.push({ name: m.name, type: m.type, sentence: m.sentence, start: m.start, description: describe(m.sentence) });
  }
  for (const d of dates) occurrences.push(...dateOccurrences(d, describe(d.sentence)));
  occurrences.sort((a, b) => a.sentence - b.sentence || a.start - b.start);
}

/** The sentence with each pronoun followed by the name it stands for: "She (Sofia) quit in May". */
export function withNamedPronouns(sentence: string, pronouns: Array<{ word: string; name: string }>): string {
  let out = sentence;
  let from = 0;
  for (const { word, name } of pronouns) {
    const match = new RegExp(`\\b${word}\\b`, 'g');
    match.lastIndex = from;
    const found = match.exec(out);
    if (!found) continue;
    const end = found.index + word.length;
    const note = ` (${name})`;
    out = `${out.slice(0, end)}${note}${out.slice(end)}`;
    from = end + note.length;
  }
  return out;
}

/** The sentence with a relative date followed by the day it resolved to: "Yesterday (2023-05-07) Caroline went…". */
export function withAbsoluteDate(sentence: string, span: DateSpan): string {
  if (span.explicitYear) return sentence;
  const day = span.startsAt.slice(0, 10);
  const at = sentence.indexOf(span.text);
  if (at < 0 || sentence.includes(`${span.text} (${day}`)) return sentence;
  const end = at + span.text.length;
  const resolved = span.endsAt ? `${day} to ${span.endsAt.slice(0, 10)}` : day;
  return `${sentence.slice(0, end)} (${resolved})${sentence.slice(end)}`;
}

function dateOccurrences(span: DateSpan, description: string): Occurrence[] {
  if (!span.explicitYear) return [];
  return dateNames(span).map((name) => ({ name, type: 'date', sentence: span.sentence, start: span.start, description }));
}

/** "San Francisco, California": the first place lies in the second. */
function locatedIn(mentions: Mention[], parsed: ParsedText): RelationCandidate[] {
  const out: RelationCandidate[] = [];
  for (let i = 0; i + 1 < mentions.length; i++) {
    const a = mentions[i];
    const b = mentions[i + 1];
    if (a.type !== 'location' || b.type !== 'location' || b.start !== a.end) continue;
    if (!/,/.test(parsed.tokens[a.end - 1]?.post ?? '')) continue;
    // Only a region or country contains the place before it ("Rome, Milan and Naples" is a list).
    const region = parsed.tokens.slice(b.start, b.end).some((t) => t.tags.has('Country') || t.tags.has('Region'));
    if (!region) continue;
    out.push({
      source: a,
      target: b,
      relation: 'located_in',
      keywords: ['located in', 'location'],
      validAt: null,
      invalidAt: null,
      sentence: a.sentence,
    });
  }
  return out;
}

/** One entity per name (case-insensitive), first spelling and description, most specific type. */
function mergeEntities(occurrences: Occurrence[]): ExtractedEntity[] {
  const byKey = new Map<string, ExtractedEntity>();
  const order: string[] = [];
  for (const o of occurrences) {
    const name = o.name.replace(/\s+/g, ' ').trim();
    if (!name) continue;
    const key = name.toLowerCase();
    const existing = byKey.get(key);
    if (!existing) {
      byKey.set(key, { name, type: o.type, description: o.description });
      order.push(key);
    } else if ((TYPE_RANK[o.type] ?? 0) > (TYPE_RANK[existing.type] ?? 0)) {
      existing.type = o.type;
    }
  }
  return order.map((k) => byKey.get(k)!);
}

function canonical(entities: ExtractedEntity[], name: string): string {
  const key = name.replace(/\s+/g, ' ').trim().toLowerCase();
  return entities.find((e) => e.name.toLowerCase() === key)?.name ?? name;
}

/**
 * Short names that stand for exactly one fuller name of the same text: a person's first or
 * last name ("Alice" → "Alice Johnson"), or the leading words of an organization's or other
 * name ("Acme" → "Acme Corporation"). Ambiguous short names (two Alices) stay as they are.
 */
function aliases(entities: ExtractedEntity[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const short of entities) {
    if (short.type === 'date') continue;
    const words = short.name.split(' ');
    const matches = entities.filter((full) => {
      if (full === short || full.type === 'date') return false;
      const fullWords = full.name.split(' ');
      if (fullWords.length <= words.length) return false;
      if (short.type !== 'concept' && full.type !== short.type) return false;
      if (full.type === 'person' && words.length === 1) {
        return fullWords[0] === words[0] || fullWords[fullWords.length - 1] === words[0];
      }
      if (full.type === 'person') return false;
      return words.every((w, i) => fullWords[i] === w);
    });
    if (matches.length === 1) {
      const full = matches[0];
      out.set(short.name.toLowerCase(), full.name);
      if ((TYPE_RANK[short.type] ?? 0) > (TYPE_RANK[full.type] ?? 0)) full.type = short.type;
    }
  }
  return out;
}
