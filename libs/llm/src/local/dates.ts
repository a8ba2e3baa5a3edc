import { matchRanges, parse, verbForms, verbLemma, type ParsedText, type Token } from './nlp';

/**
 * Dates in the text, resolved to instants by compromise-dates (UTC). What a date means for a
 * fact depends on the word before it:
 * - `since 2021`, `in 2018`, `On 5 May 2022` → the fact starts then (`point` / `since`);
 * - `until 2021` → the fact stops then (`until`);
 * - `from 2019 to 2021`, `between 2019 and 2021` → both (`range`).
 * An instant is the start of the period named ("March 2023" → 2023-03-01T00:00:00.000Z).
 *
 * Without a reference date, only dates that name their year are used: "in March" or "last
 * year" would otherwise resolve against the clock, and the same text would give different
 * facts on different days.
 */

export type DateRole = 'point' | 'since' | 'until' | 'range';

export interface DateSpan {
  /** Document term indexes `[start, end)`, including a leading preposition. */
  start: number;
  end: number;
  sentence: number;
  /** The date as written, without the preposition ("March 2023"). */
  text: string;
  role: DateRole;
  /** Start of the period, ISO-8601. */
  startsAt: string;
  /** For `range`: start of the period the range ends in. */
  endsAt: string | null;
  /** Whether the text names the year (else it was resolved against the reference date). */
  explicitYear: boolean;
}

interface DateJson {
  text: string;
  dates?: { start?: string | null; end?: string | null };
}

const RANGE_SPLIT = /\s+(?:to|until|till|through|thru|and)\s+|\s*[-–—]\s*(?=\D)/i;
const DATE_WORDS =
  /\b(?:today|yesterday|tomorrow|tonight|ago|last|next|this|coming|past|week|weekend|month|year|decade|century|day|morning|evening|night|(?:mon|tues|wednes|thurs|fri|satur|sun)day|jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|spring|summer|autumn|fall|winter|christmas|easter|new year)\b/i;
const YEAR = /\b(?:1[0-9]|20|21)\d{2}\b/;
const LEADING_PREPOSITION = /^(?:in|on|at|since|from|until|till|between|by|during|of|as of|starting)\s+/i;

export function dateContext(referenceDate?: Date): { timezone: string; today: string } {
  // A fixed day without a reference: only explicit-year dates are kept then, and those do not
  // depend on it, but nothing should depend on the clock either.
  const today = referenceDate && !Number.isNaN(referenceDate.getTime()) ? referenceDate : new Date(Date.UTC(2000, 0, 1));
  return { timezone: 'UTC', today: today.toISOString().slice(0, 10) };
}

function toIso(value: string | null | undefined): string | null {
  if (!value) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

/**
 * resolveStart's answers by reference day and text. Each one parses the date's text again with
 * compromise and runs its dates plugin, and the same written dates come back chunk after chunk
 * ("the 1990s", "March 5") against the same day; on HotpotQA's passages 204 of 1,039 look-ups
 * hit, about 1 ms of ~29 ms of a passage's offline NLP (measured side by side). The answer
 * depends on the text and that day only. Per worker thread and cleared when full, so its memory
 * stays bounded; one tenant's texts can only evict entries, which are then computed again.
 */
const resolvedStarts = new Map<string, string | null>();
const RESOLVED_STARTS_MAX = 10_000;

function resolveStart(text: string, referenceDate?: Date): string | null {
  const context = dateContext(referenceDate);
  const key = `${context.today}\u0000${text}`;
  const known = resolvedStarts.get(key);
  if (known !== undefined) return known;
  const json = parse(text).dates(context).json() as DateJson[];
  const start = toIso(json[0]?.dates?.start);
  if (resolvedStarts.size >= RESOLVED_STARTS_MAX) resolvedStarts.clear();
  resolvedStarts.set(key, start);
  return start;
}

export function findDates(parsed: ParsedText, referenceDate?: Date): DateSpan[] {
  const spans: DateSpan[] = [];
  // The dates plugin tags date words while parsing; resolving is the costly part, so the common
  // written forms are resolved here and only the others go through the plugin's resolver.
  for (const range of matchRanges(parsed.doc.match('#Date+'))) {
    const first = parsed.tokens[range.start];
    // (A word the retags took out of dates is none: "Min-jun" is a name, not a minute of June.)
    if (!first || !first.tags.has('Date')) continue;
    const written = range.text.replace(/[\s.,;:!?]+$/u, '').trim();
    const explicitYear = YEAR.test(written) || /\b\d{4}-\d{2}-\d{2}\b/.test(written);
    if (!explicitYear && !referenceDate) continue;
    // The tagger sometimes reads a plain noun as a date ("factory" as a time zone).
    if (!explicitYear && !DATE_WORDS.test(written) && !/\d/.test(written)) continue;
    const before = parsed.tokens[range.start - 1];
    const leading = LEADING_PREPOSITION.exec(written)?.[0].trim().toLowerCase();
    const lead = leading ?? (before && before.sentence === first.sentence ? before.normal : '');
    const bare = written.replace(LEADING_PREPOSITION, '');
    const found = resolveDate(bare, referenceDate);
    if (!found) continue;
    const resolved = explicitYear || !referenceDate || !saysPast(parsed, first.sentence) ? found : beforeReference(found, bare, referenceDate);
    let role: DateRole = 'point';
    if (resolved.endsAt) role = 'range';
    else if (lead === 'since' || lead === 'from' || lead === 'between') role = 'since';
    else if (lead === 'until' || lead === 'till') role = 'until';
    const spanStart = !leading && before && ['since', 'from', 'until', 'till', 'between'].includes(before.normal) ? range.start - 1 : range.start;
    spans.push({
      start: spanStart,
      end: range.end,
      sentence: first.sentence,
      text: bare,
      role,
      startsAt: resolved.startsAt,
      endsAt: resolved.endsAt,
      explicitYear,
    });
  }
  return mergeBetween(parsed, spans);
}

const WEEKDAY = /\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b/i;
const FUTURE_WORDS = new Set(['will', "'ll", 'shall', 'next', 'tomorrow', 'going', 'plans', 'planning', 'intends']);

/** The sentence tells of the past ("left in May", "retired on Friday") and says nothing of a future. */
function saysPast(parsed: ParsedText, sentence: number): boolean {
  // The sentence's own tokens (sentence indexes run on from the first one's), not a scan of the text's.
  const own = parsed.sentences[sentence - (parsed.sentences[0]?.index ?? 0)];
  const tokens = own?.index === sentence ? own.tokens : parsed.tokens.filter((t) => t && t.sentence === sentence);
  // ("Ben quit in August": a verb whose past is its bare form is the past, as validity.ts reads it.)
  const bareFormPast = (t: Token) => t.tags.has('Verb') && !t.tags.has('Copula') && !t.tags.has('Auxiliary') && verbForms(verbLemma(t)).past === t.normal;
  return tokens.some((t) => t.tags.has('PastTense') || bareFormPast(t)) && !tokens.some((t) => FUTURE_WORDS.has(t.normal));
}

/**
 * "left in May" said in June is the May before, but the library picks the next one: a date of a
 * past event that resolved after the text's own time is moved back a week ("on Monday") or a
 * year ("in March"), so that the fact's time and its description's date are one day (validity.ts
 * moves a fact's time with it).
 */
export function beforeReference(date: { startsAt: string; endsAt: string | null }, text: string, referenceDate: Date): { startsAt: string; endsAt: string | null } {
  if (new Date(date.startsAt).getTime() <= referenceDate.getTime()) return date;
  // ("left this morning", said on the day: by the text's own time, not a year before.)
  if (date.startsAt.slice(0, 10) === referenceDate.toISOString().slice(0, 10)) return { startsAt: referenceDate.toISOString(), endsAt: null };
  const back = (iso: string) => {
    const moved = new Date(iso);
    if (WEEKDAY.test(text)) moved.setUTCDate(moved.getUTCDate() - 7);
    else moved.setUTCFullYear(moved.getUTCFullYear() - 1);
    return moved.toISOString();
  };
  return { startsAt: back(date.startsAt), endsAt: date.endsAt ? back(date.endsAt) : null };
}

const MONTHS: Record<string, number> = {
  jan: 1, january: 1, feb: 2, february: 2, mar: 3, march: 3, apr: 4, april: 4, may: 5, jun: 6, june: 6,
  jul: 7, july: 7, aug: 8, august: 8, sep: 9, sept: 9, september: 9, oct: 10, october: 10, nov: 11,
  november: 11, dec: 12, december: 12,
};
const MONTH = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';
const FORMS: Array<[RegExp, (m: RegExpExecArray) => [number, number, number]]> = [
  [/^(\d{4})$/, (m) => [+m[1], 1, 1]],
  [/^(\d{4})-(\d{1,2})(?:-(\d{1,2}))?$/, (m) => [+m[1], +m[2], m[3] ? +m[3] : 1]],
  [new RegExp(`^${MONTH},?\\s+(\\d{4})$`, 'i'), (m) => [+m[2], MONTHS[m[1].toLowerCase()], 1]],
  [new RegExp(`^(?:the\\s+)?(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH},?\\s+(\\d{4})$`, 'i'), (m) => [+m[3], MONTHS[m[2].toLowerCase()], +m[1]]],
  [new RegExp(`^${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})$`, 'i'), (m) => [+m[3], MONTHS[m[1].toLowerCase()], +m[2]]],
];

/** A written date in one of the common explicit forms, as the start of the period it names. */
export function parseExplicitDate(text: string): string | null {
  const clean = text.replace(/^the\s+/i, '').replace(/\s+/g, ' ').trim();
  for (const [pattern, parts] of FORMS) {
    const m = pattern.exec(clean);
    if (!m) continue;
    const [year, month, day] = parts(m);
    if (year < 1000 || year > 2199 || !month || month > 12 || day < 1 || day > 31) return null;
    const date = new Date(Date.UTC(year, month - 1, day));
    if (date.getUTCMonth() !== month - 1) return null;
    return date.toISOString();
  }
  return null;
}

function resolveDate(bare: string, referenceDate?: Date): { startsAt: string; endsAt: string | null } | null {
  const single = parseExplicitDate(bare);
  if (single) return { startsAt: single, endsAt: null };
  const parts = splitRange(bare);
  if (parts.length === 2) {
    const from = parseExplicitDate(parts[0]) ?? resolveStart(parts[0], referenceDate);
    const to = parseExplicitDate(parts[1]) ?? resolveStart(parts[1], referenceDate);
    if (from && to) return { startsAt: from, endsAt: to };
  }
  const start = resolveStart(bare, referenceDate);
  return start ? { startsAt: start, endsAt: null } : null;
}

/** "between 2019 and 2021" comes out of the library as two dates: one range. */
function mergeBetween(parsed: ParsedText, spans: DateSpan[]): DateSpan[] {
  const out: DateSpan[] = [];
  for (let i = 0; i < spans.length; i++) {
    const a = spans[i];
    const b = spans[i + 1];
    const lead = parsed.tokens[a.start]?.normal;
    const joiner = parsed.tokens[a.end];
    if (b && (lead === 'between' || lead === 'from') && a.role !== 'range' && joiner && b.start === a.end + 1 &&
      ['and', 'to', 'until', 'till', 'through'].includes(joiner.normal)) {
      out.push({ ...a, end: b.end, role: 'range', endsAt: b.startsAt, text: `${a.text} ${joiner.normal} ${b.text}` });
      i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/** Entity names for a date: each end of a range on its own ("May 2018", "June 2020"). */
export function dateNames(span: DateSpan): string[] {
  const parts = span.role === 'range' ? splitRange(span.text) : [span.text];
  return parts
    .map((p) => p.replace(LEADING_PREPOSITION, '').replace(/^the\s+/i, '').replace(/[\s.,;:!?]+$/u, '').trim())
    .filter((p) => YEAR.test(p));
}

/** "2019 to 2021", "May 2018 until June 2020", "2001-2005" → both ends; else the text alone. */
function splitRange(text: string): string[] {
  const years = /^(\d{4})\s*[-–—]\s*(\d{4})$/.exec(text.trim());
  if (years) return [years[1], years[2]];
  return text.split(RANGE_SPLIT);
}
