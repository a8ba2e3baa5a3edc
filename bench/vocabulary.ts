import type { Rng } from './prng';

/**
 * Word lists and sentence templates of the generated graphs. Names are built from parts so that
 * a million-edge tenant still gets distinct names; sentences read like the text ingestion turns
 * into facts, so chunk, entity and edge vectors (local-hash-v1) share words the way real ones do.
 */

export type EntityType = 'person' | 'organization' | 'location' | 'product';

export const ENTITY_TYPE_SHARES: ReadonlyArray<[EntityType, number]> = [
  ['person', 0.4],
  ['organization', 0.25],
  ['location', 0.15],
  ['product', 0.2],
];

const FIRST = (
  'Alice Bob Carla David Elena Farid Grace Hiro Ines Jonas Kira Liam Maya Noah Olga Pavel Quinn Rosa Samir Tara ' +
  'Umar Vera Wen Ximena Yusuf Zoe Aiden Bianca Cyrus Dalia Emil Fatima Gustav Hana Ivan Julia Kofi Lena Marco Nadia ' +
  'Omar Petra Rafael Sofia Tomas Ursula Viktor Wanda Yara Zane Amara Bruno Chloe Dmitri Esther Felix Greta Hugo Iris Jamal'
).split(' ');

const LAST = (
  'Johnson Smith Novak Garcia Okafor Tanaka Muller Rossi Dubois Kowalski Silva Haddad Jensen Petrov Nguyen Kim Schmidt ' +
  'Costa Moreau Fischer Lindqvist Ibrahim Sato Romero Weber Kaur Walsh Brennan Horvat Yilmaz Andersen Laurent Mendes ' +
  'Varga Castillo Nakamura Becker Eriksen Fontaine Galloway Hoffman Ivanova Jovanovic Keller Lombardi Marsh Nielsen ' +
  'Ortega Pereira Quiroga Reyes Sandoval Thorne Ueda Vasquez Whitaker Xu Yamada Zielinski Abbott Baptiste'
).split(' ');

const SYLLABLES = 'ka zan tor vel mi ron dex lu sa qui bel nor tri va co lin gro pha ser tek ul mar on iv pra sto ben ox yr fal'.split(' ');

const ORG_KINDS = (
  'Dynamics Labs Systems Logistics Foods Capital Robotics Energy Analytics Pharma Media Networks Biotech Freight ' +
  'Aerospace Textiles Software Insurance Consulting Materials'
).split(' ');
const ORG_FORMS = ['', '', 'Inc.', 'GmbH', 'Ltd', 'Group', 'Holdings'];

const CITIES = (
  'Berlin Paris Lisbon Oslo Nairobi Osaka Toronto Austin Lyon Krakow Porto Seville Bergen Dublin Tallinn Leeds ' +
  'Utrecht Ghent Turin Valencia Gdansk Brno Tampere Aarhus Malmo Bilbao Graz Basel Leipzig Riga'
).split(' ');
const PLACE_PATTERNS = ['Port {r}', '{r} Falls', 'New {r}', 'Lake {r}', '{r} Bay', 'North {r}', '{r}ville', 'Saint {r}'];

const PRODUCT_NOUNS = 'Router Scanner Ledger Planner Sensor Drone Tablet Compiler Gateway Battery Console Tracker'.split(' ');

const ROLES = 'software engineer,data analyst,product manager,chemist,sales director,nurse,architect,accountant,designer,logistics planner,researcher,journalist'.split(',');
const INDUSTRIES = 'logistics,pharmaceutical,software,renewable energy,food processing,insurance,aerospace,media,robotics,textile'.split(',');
const REGIONS = 'the north,the coast,the river valley,the mountains,the south-east,the lake district,the central plain'.split(',');
const PLACE_KINDS = ['city', 'port town', 'market town', 'university town', 'industrial district'];
const CATEGORIES = 'network appliance,analytics platform,medical device,delivery drone,accounting suite,battery pack,planning tool'.split(',');
const AUDIENCES = 'small businesses,hospitals,warehouses,farmers,city councils,universities,retail chains'.split(',');
const TOPICS = 'supply chains,cloud migration,clinical trials,battery recycling,route planning,fraud detection,crop yields'.split(',');
const TEAMS = 'platform,sales,research,operations,finance,design'.split(',');
const MONTHS = 'January February March April May June July August September October November December'.split(' ');

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** "a chemist", "an architect". */
const a = (noun: string) => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;

/** Ends a sentence once: a name ending in "Inc." does not get a second period. */
export const tidy = (sentence: string) => sentence.replace(/\.\.$/, '.');

function syllableWord(rng: Rng, min = 2, max = 3): string {
  const n = rng.between(min, max);
  let word = '';
  for (let i = 0; i < n; i++) word += rng.pick(SYLLABLES);
  return capitalize(word);
}

/** A candidate name of `type`; the generator re-draws until it is new in its tenant. */
export function drawName(rng: Rng, type: EntityType, attempt: number): string {
  switch (type) {
    case 'person': {
      const first = rng.pick(FIRST);
      const last = rng.pick(LAST);
      if (attempt === 0 && rng.chance(0.5)) return `${first} ${last}`;
      if (attempt < 4 && rng.chance(0.7)) return `${first} ${String.fromCharCode(65 + rng.int(26))}. ${last}`;
      return `${first} ${last}-${rng.pick(LAST)}`;
    }
    case 'organization': {
      const form = rng.pick(ORG_FORMS);
      return `${syllableWord(rng)} ${rng.pick(ORG_KINDS)}${form ? ` ${form}` : ''}`;
    }
    case 'location':
      if (attempt === 0 && rng.chance(0.3)) return rng.pick(CITIES);
      return rng.pick(PLACE_PATTERNS).replace('{r}', syllableWord(rng, 2, 2));
    case 'product':
      return `${syllableWord(rng, 1, 2)} ${rng.pick(PRODUCT_NOUNS)} ${String.fromCharCode(65 + rng.int(26))}${rng.between(1, 9)}`;
  }
}

export function describeEntity(rng: Rng, name: string, type: EntityType): string {
  switch (type) {
    case 'person':
      return `${name} is ${a(rng.pick(ROLES))} with ${rng.between(2, 30)} years of experience.`;
    case 'organization':
      return `${name} is ${a(rng.pick(INDUSTRIES))} company founded in ${rng.between(1950, 2020)}.`;
    case 'location':
      return `${name} is ${a(rng.pick(PLACE_KINDS))} in ${rng.pick(REGIONS)}.`;
    case 'product':
      return `${name} is ${a(rng.pick(CATEGORIES))} made for ${rng.pick(AUDIENCES)}.`;
  }
}

/** How a fact stands in time: live, ended (invalid_at set) or superseded (expired_at set too). */
export type FactState = 'live' | 'ended' | 'superseded';

export interface FactTime {
  /** The year the sentence names as the fact's start, if it names one. */
  since?: { year: number; month: number };
  until?: { year: number; month: number };
}

export interface RelationTemplate {
  relation: string;
  source: EntityType;
  target: EntityType;
  /** The edge's keywords (ingestion stores them joined by ", "); also the question's hl_keywords. */
  keywords: [string, string];
  /** Whether a newer fact of this relation replaces an older one (ingestion's supersession). */
  exclusive: boolean;
  sentence(s: string, t: string, rng: Rng, time: FactTime, state: FactState): string;
  question(s: string): string;
}

const when = (time: FactTime) => (time.since ? `${MONTHS[time.since.month]} ${time.since.year}` : '');
const span = (time: FactTime) =>
  time.since && time.until ? ` from ${time.since.year} until ${time.until.year}` : time.since ? ` since ${when(time)}` : '';

export const RELATIONS: readonly RelationTemplate[] = [
  {
    relation: 'works_at', source: 'person', target: 'organization', keywords: ['employment', 'works at'], exclusive: true,
    sentence: (s, t, rng, time, state) =>
      state === 'live' ? `${s} works at ${t} as ${a(rng.pick(ROLES))}${span(time)}.` : `${s} worked at ${t}${span(time)}.`,
    question: (s) => `Where does ${s} work?`,
  },
  {
    relation: 'lives_in', source: 'person', target: 'location', keywords: ['residence', 'lives in'], exclusive: true,
    sentence: (s, t, _rng, time, state) => (state === 'live' ? `${s} lives in ${t}${span(time)}.` : `${s} lived in ${t}${span(time)}.`),
    question: (s) => `Where does ${s} live?`,
  },
  {
    relation: 'founded', source: 'person', target: 'organization', keywords: ['founder', 'company founding'], exclusive: false,
    sentence: (s, t, _rng, time) => `${s} founded ${t}${time.since ? ` in ${time.since.year}` : ''}.`,
    question: (s) => `Which company did ${s} found?`,
  },
  {
    relation: 'knows', source: 'person', target: 'person', keywords: ['acquaintance', 'personal network'], exclusive: false,
    sentence: (s, t, _rng, time) => `${s} has known ${t}${time.since ? ` since ${time.since.year}` : ' for years'}.`,
    question: (s) => `Who does ${s} know?`,
  },
  {
    relation: 'manages', source: 'person', target: 'person', keywords: ['management', 'reporting line'], exclusive: false,
    sentence: (s, t, rng, time, state) =>
      `${s} ${state === 'live' ? 'manages' : 'managed'} ${t} on the ${rng.pick(TEAMS)} team${span(time)}.`,
    question: (s) => `Who does ${s} manage?`,
  },
  {
    relation: 'headquartered_in', source: 'organization', target: 'location', keywords: ['headquarters', 'company location'], exclusive: true,
    sentence: (s, t, _rng, time, state) =>
      state === 'live' ? `${s} is headquartered in ${t}${span(time)}.` : `${s} was headquartered in ${t}${span(time)}.`,
    question: (s) => `Where is ${s} headquartered?`,
  },
  {
    relation: 'acquired', source: 'organization', target: 'organization', keywords: ['acquisition', 'merger'], exclusive: false,
    sentence: (s, t, _rng, time) => `${s} acquired ${t}${time.since ? ` in ${when(time)}` : ''}.`,
    question: (s) => `Which company did ${s} acquire?`,
  },
  {
    relation: 'partners_with', source: 'organization', target: 'organization', keywords: ['partnership', 'collaboration'], exclusive: false,
    sentence: (s, t, rng, time, state) =>
      `${s} ${state === 'live' ? 'partners' : 'partnered'} with ${t} on ${rng.pick(TOPICS)}${span(time)}.`,
    question: (s) => `Who does ${s} partner with?`,
  },
  {
    relation: 'produces', source: 'organization', target: 'product', keywords: ['manufacturing', 'product line'], exclusive: false,
    sentence: (s, t, _rng, time, state) => `${s} ${state === 'live' ? 'makes' : 'made'} the ${t}${span(time)}.`,
    question: (s) => `What products does ${s} make?`,
  },
  {
    relation: 'opened_office_in', source: 'organization', target: 'location', keywords: ['expansion', 'office opening'], exclusive: false,
    sentence: (s, t, _rng, time) => `${s} opened an office in ${t}${time.since ? ` in ${when(time)}` : ''}.`,
    question: (s) => `Where did ${s} open offices?`,
  },
  {
    relation: 'uses', source: 'person', target: 'product', keywords: ['tools', 'product usage'], exclusive: false,
    sentence: (s, t, rng, time, state) => `${s} ${state === 'live' ? 'uses' : 'used'} the ${t} for ${rng.pick(TOPICS)}${span(time)}.`,
    question: (s) => `Which tools does ${s} use?`,
  },
  {
    relation: 'competes_with', source: 'product', target: 'product', keywords: ['competition', 'market rivals'], exclusive: false,
    sentence: (s, t, rng) => `The ${s} competes with the ${t} among ${rng.pick(AUDIENCES)}.`,
    question: (s) => `What does the ${s} compete with?`,
  },
];

export const DOCUMENT_KINDS = ['profile', 'news', 'memo', 'interview', 'report', 'minutes'];

/** A slug for document names: "Zanvel Labs GmbH" → "zanvel-labs-gmbh". */
export const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
