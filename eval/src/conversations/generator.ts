import { askAbout } from './questions';
import { Rng } from './rng';
import * as say from './phrasings';
import { chatter, closing, opening, reaction, Turn } from './smalltalk';
import * as world from './world';

/**
 * A conversational development set, generated from a seed: pairs of friends chatting over a year
 * or more, one dated session at a time. Each person's job, home and club change over time; pets,
 * partners, trips and one-off episodes come and go; small talk fills the rest. Every statement of
 * a fact is recorded as a mention (who, which slot, which value, in which session), and the
 * questions' gold sessions are read from those mentions, never written by hand.
 */

export type Slot = 'job' | 'home' | 'club' | 'pet' | 'partner' | 'trip' | `episode:${string}`;

export interface Mention {
  persona: string;
  slot: Slot;
  value: string;
}

export interface Session {
  /** The document name: "<first speaker> and <second speaker>, session <n>". */
  title: string;
  pair: number;
  /** 1-based position in its pair's conversation. */
  index: number;
  /** YYYY-MM-DD: the document date, and the session's date line. */
  date: string;
  speakers: [string, string];
  /** The date line, then one "Name: text" line per turn. */
  text: string;
  mentions: Mention[];
}

export type QuestionType = 'single-session' | 'multi-session' | 'temporal' | 'latest';

export interface ConversationQuestion {
  id: string;
  question: string;
  /** One value (or, for multi-session questions, several joined by "; "). */
  answer: string;
  /** Titles of the sessions that mention the answer's values in the asked slot, in session order. */
  supporting_titles: string[];
  type: QuestionType;
  level: 'conversational';
  persona: string;
  slot: Slot;
  values: string[];
}

export interface ConversationSet {
  seed: number;
  sessions: Session[];
  questions: ConversationQuestion[];
}

export interface GenerateOptions {
  seed: number;
  pairs?: number;
  sessionsPerPair?: number;
}

export const DEFAULT_SEED = 36;

/** A value of a state slot, held from a session on (its index, 0-based). */
export interface Held {
  value: string;
  from: number;
  role?: string;
}

export interface Persona {
  name: string;
  jobs: Held[];
  homes: Held[];
  clubs: Held[];
  pet?: { name: string; species: string; breed: string; at: number };
  partner?: { name: string; from: number; end?: { how: 'breakup' | 'engaged'; at: number } };
  trips: Array<{ destination: string; at: number; daysBefore: number; when: string; relative: string }>;
  episodes: Array<{ kind: string; detail: string; at: number; daysBefore: number; when: string; cause: string }>;
}

/** News told in a session: what is said, and which facts it states. */
interface News {
  at: number;
  owner: string;
  say: (rng: Rng, owner: string, friend: string) => Turn[];
  mentions: Mention[];
}

const DAY = 86_400_000;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Times said relative to the session, and how many days back each points (approximately, for the month). */
const RELATIVE_TIMES: Array<[string, number]> = [
  ['yesterday', 1], ['last weekend', 5], ['last week', 7], ['two weeks ago', 14], ['a few days ago', 3], ['on Saturday', 4],
];

export function generateConversations(options: GenerateOptions): ConversationSet {
  const rng = new Rng(options.seed);
  const pairs = options.pairs ?? 4;
  const perPair = options.sessionsPerPair ?? 24;
  if (perPair < 20) throw new Error('sessionsPerPair: at least 20, so that states can change and change again');
  const names = rng.sample(world.FIRST_NAMES, pairs * 2);
  const sessions: Session[] = [];
  const personas: Persona[] = [];
  for (let p = 0; p < pairs; p++) {
    const pair: [string, string] = [names[2 * p], names[2 * p + 1]];
    const dates = sessionDates(rng, perPair);
    const people = pair.map((name) => planPersona(rng, name, perPair));
    personas.push(...people);
    const news = people.flatMap((person) => newsOf(rng, person, perPair));
    for (let s = 0; s < perPair; s++) sessions.push(renderSession(rng, p, s, dates[s], pair, news.filter((n) => n.at === s)));
  }
  return { seed: options.seed, sessions, questions: askAbout(rng, personas, sessions) };
}

/** Sessions one to four weeks apart, starting somewhere in the first half of 2023. */
function sessionDates(rng: Rng, n: number): Date[] {
  let t = Date.UTC(2023, 0, 1) + rng.int(0, 180) * DAY;
  const dates: Date[] = [];
  for (let i = 0; i < n; i++) {
    dates.push(new Date(t));
    t += rng.int(8, 26) * DAY;
  }
  return dates;
}

function planPersona(rng: Rng, name: string, n: number): Persona {
  const employers = rng.sample(world.EMPLOYERS, 3);
  const roles = rng.sample(world.ROLES, 3);
  const jobs: Held[] = [{ value: employers[0].name, from: rng.int(0, 3), role: roles[0] }];
  jobs.push({ value: employers[1].name, from: rng.int(8, 13), role: roles[1] });
  if (rng.chance(0.5)) jobs.push({ value: employers[2].name, from: rng.int(17, n - 3), role: roles[2] });
  const cities = rng.sample(world.CITIES, 2);
  const homes: Held[] = [{ value: cities[0], from: rng.int(0, 4) }];
  if (rng.chance(0.75)) homes.push({ value: cities[1], from: rng.int(10, n - 4) });
  const clubs = rng.sample(world.CLUBS, 2);
  const clubList: Held[] = [{ value: clubs[0], from: rng.int(2, 8) }];
  if (rng.chance(0.7)) clubList.push({ value: clubs[1], from: rng.int(13, n - 2) });
  const persona: Persona = { name, jobs, homes, clubs: clubList, trips: [], episodes: [] };
  if (rng.chance(0.8)) {
    const pet = rng.pick(world.PETS);
    persona.pet = { name: rng.pick(world.PET_NAMES), species: pet.species, breed: rng.pick(pet.breeds), at: rng.int(3, 12) };
  }
  if (rng.chance(0.6)) {
    const from = rng.int(5, 10);
    persona.partner = { name: rng.pick(world.OTHER_NAMES), from };
    if (rng.chance(0.7)) persona.partner.end = { how: rng.chance(0.5) ? 'breakup' : 'engaged', at: rng.int(from + 6, n - 2) };
  }
  // Trips and episodes in distinct sessions, so that "in May 2024" names one of each person's trips.
  const slots = rng.sample(Array.from({ length: n - 1 }, (_, i) => i + 1), 5);
  for (const [i, destination] of rng.sample(world.DESTINATIONS, rng.int(2, 3)).entries()) {
    const [when, daysBefore] = rng.pick(RELATIVE_TIMES);
    persona.trips.push({ destination, at: slots[i], when, daysBefore, relative: rng.pick(world.RELATIVES) });
  }
  for (const [i, ep] of rng.sample(world.EPISODES, 2).entries()) {
    const [when, daysBefore] = rng.pick(RELATIVE_TIMES);
    persona.episodes.push({ kind: ep.kind, detail: rng.pick(ep.details), at: slots[3 + i], when, daysBefore, cause: rng.pick(world.INJURY_CAUSES) });
  }
  return persona;
}

/** Everything a persona tells over the conversation, each at its session. */
function newsOf(rng: Rng, p: Persona, n: number): News[] {
  const m = (slot: Slot, ...values: string[]) => values.map((value) => ({ persona: p.name, slot, value }));
  const news: News[] = [];
  const first = world.EMPLOYERS.find((e) => e.name === p.jobs[0].value)!;
  news.push({ at: p.jobs[0].from, owner: p.name, say: say.jobStart(first.name, first.kind, p.jobs[0].role!), mentions: m('job', first.name) });
  for (let i = 1; i < p.jobs.length; i++) {
    const [from, to] = [p.jobs[i - 1], p.jobs[i]];
    const said = say.jobChange(from.value, to.value, to.role!);
    // Which phrasing is drawn decides whether the old employer is named: read it from the turns.
    news.push(recordingOld(rng, p.name, to.from, said, 'job', from.value, to.value));
  }
  news.push({ at: p.homes[0].from, owner: p.name, say: say.homeInitial(p.homes[0].value), mentions: m('home', p.homes[0].value) });
  if (p.homes[1]) news.push(recordingOld(rng, p.name, p.homes[1].from, say.move(p.homes[0].value, p.homes[1].value), 'home', p.homes[0].value, p.homes[1].value));
  news.push({ at: p.clubs[0].from, owner: p.name, say: say.clubJoin(p.clubs[0].value), mentions: m('club', p.clubs[0].value) });
  if (p.clubs[1]) news.push(recordingOld(rng, p.name, p.clubs[1].from, say.clubSwitch(p.clubs[0].value, p.clubs[1].value), 'club', p.clubs[0].value, p.clubs[1].value));
  if (p.pet) news.push({ at: p.pet.at, owner: p.name, say: say.petAdopted(p.pet.species, p.pet.breed, p.pet.name), mentions: m('pet', p.pet.name) });
  if (p.partner) {
    const where = rng.pick(['at a friend’s birthday party', 'on a dating app', 'at the climbing wall', 'through work', 'at a wedding']);
    news.push({ at: p.partner.from, owner: p.name, say: say.partnerStart(p.partner.name, where), mentions: m('partner', p.partner.name) });
    if (p.partner.end) news.push({ at: p.partner.end.at, owner: p.name, say: say.partnerEnd(p.partner.name, p.partner.end.how), mentions: m('partner', p.partner.name) });
  }
  for (const trip of p.trips) news.push({ at: trip.at, owner: p.name, say: say.trip(trip.destination, trip.when, trip.relative), mentions: m('trip', trip.destination) });
  for (const e of p.episodes) news.push({ at: e.at, owner: p.name, say: say.episode(e.kind, e.detail, e.when, e.cause), mentions: m(`episode:${e.kind}`, e.detail) });
  // Now and then the friend asks after the job, the city or the club as it is at that session.
  const told = new Set(news.map((x) => x.at));
  for (let s = 1; s < n; s++) {
    if (told.has(s) || !rng.chance(0.15)) continue;
    const slot = rng.pick(['job', 'home', 'club'] as const);
    const held = current({ job: p.jobs, home: p.homes, club: p.clubs }[slot], s);
    if (held && held.from < s) news.push({ at: s, owner: p.name, say: say.followUp(slot, held.value), mentions: m(slot, held.value) });
  }
  return news;
}

/** A change's news, its mentions read from the words drawn: the old value counts only where it is said. */
function recordingOld(rng: Rng, owner: string, at: number, said: News['say'], slot: Slot, from: string, to: string): News {
  const turns = said(rng, owner, '{friend}');
  const text = turns.map((x) => x.text).join(' ');
  const mentions: Mention[] = [{ persona: owner, slot, value: to }];
  if (text.includes(say.bare(from))) mentions.push({ persona: owner, slot, value: from });
  return { at, owner, say: (_rng, o, f) => turns.map((x) => ({ speaker: x.speaker === '{friend}' ? f : o, text: x.text })), mentions };
}

export function current(held: Held[], session: number): Held | undefined {
  return [...held].reverse().find((h) => h.from <= session);
}

function renderSession(rng: Rng, pair: number, s: number, date: Date, speakers: [string, string], news: News[]): Session {
  const starter = rng.pick(speakers);
  const other = starter === speakers[0] ? speakers[1] : speakers[0];
  const turns: Turn[] = [...opening(rng, starter, other)];
  const bits: Turn[][] = news.map((n) => {
    const friend = n.owner === speakers[0] ? speakers[1] : speakers[0];
    const said = n.say(rng, n.owner, friend);
    if (rng.chance(0.5) && said[said.length - 1].speaker === n.owner) said.push(reaction(rng, friend));
    return said;
  });
  for (let i = rng.int(3, 7); i > 0; i--) {
    const who = rng.pick(speakers);
    bits.push(chatter(rng, who, who === speakers[0] ? speakers[1] : speakers[0]));
  }
  for (const bit of rng.shuffle(bits)) turns.push(...bit);
  const closer = rng.pick(speakers);
  turns.push(...closing(rng, closer, closer === speakers[0] ? speakers[1] : speakers[0]));
  const day = date.toISOString().slice(0, 10);
  const dateLine = rng.chance(0.5) ? `Session date: ${longDate(date)}` : `Date: ${day}`;
  return {
    title: `${speakers[0]} and ${speakers[1]}, session ${s + 1}`,
    pair,
    index: s + 1,
    date: day,
    speakers,
    text: [dateLine, ...turns.map((x) => `${x.speaker}: ${x.text}`)].join('\n'),
    mentions: news.flatMap((n) => n.mentions),
  };
}

export function longDate(d: Date): string {
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

export function monthOf(d: Date): string {
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

