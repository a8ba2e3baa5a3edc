import type { ConversationQuestion, Held, Persona, QuestionType, Session, Slot } from './generator';
import { Rng } from './rng';

/**
 * The questions someone would ask of these conversations later, worded as a person asks (in the
 * third person, by name, with other words than the sessions used), of four kinds: a fact one
 * session told, facts spread over several, a fact at a date, and a state as it is now. Gold is
 * every session that mentions the answer's values in the asked slot.
 */

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAY = 86_400_000;

const EPISODE_QUESTIONS: Record<string, string[]> = {
  car: ['What part had to be fixed on {P}’s car?', 'What was wrong with {P}’s car when it broke down?'],
  concert: ['Which act did {P} see in concert?', 'What gig did {P} go to?'],
  book: ['What book was {P} reading and recommending?', 'Which novel could {P} not put down?'],
  dish: ['What did {P} cook for the first time?', 'Which dish did {P} make for the dinner party?'],
  injury: ['What injury did {P} get?', 'How did {P} get hurt?'],
  course: ['What subject is {P} taking an evening course in?', 'What is {P} learning on weeknights?'],
  purchase: ['What did {P} buy as a treat?', 'What big purchase did {P} make?'],
};

export function askAbout(rng: Rng, personas: Persona[], sessions: Session[]): ConversationQuestion[] {
  const questions: ConversationQuestion[] = [];
  for (const p of personas) {
    const own = sessions.filter((s) => s.speakers.includes(p.name));
    const dateOf = (index: number) => new Date(`${own[index].date}T00:00:00Z`);
    const add = (type: QuestionType, slot: Slot, values: string[], wordings: string[]) => {
      const gold = own.filter((s) => s.mentions.some((m) => m.persona === p.name && m.slot === slot && values.includes(m.value)));
      if (gold.length === 0) throw new Error(`no session mentions ${p.name}'s ${slot} ${values.join(', ')}`);
      questions.push({
        id: `${p.name.toLowerCase()}-${questions.filter((q) => q.persona === p.name).length + 1}`,
        question: rng.pick(wordings).replaceAll('{P}', p.name),
        answer: values.join('; '),
        supporting_titles: gold.map((s) => s.title),
        type,
        level: 'conversational',
        persona: p.name,
        slot,
        values,
      });
    };

    // One session.
    if (p.pet) add('single-session', 'pet', [p.pet.name], [`What is {P}'s ${p.pet.species} called?`, `What name did {P} give the ${p.pet.species}?`, "What's the name of {P}'s pet?"]);
    for (const e of p.episodes) add('single-session', `episode:${e.kind}`, [e.detail], EPISODE_QUESTIONS[e.kind]);

    // Several sessions.
    add('multi-session', 'job', p.jobs.map((j) => j.value), ['Which companies has {P} worked for?', 'Name every employer {P} has had.', 'Where has {P} been employed over the years?']);
    if (p.homes.length > 1) add('multi-session', 'home', p.homes.map((h) => h.value), ['Which cities has {P} lived in?', 'Where has {P} called home?']);
    add('multi-session', 'trip', p.trips.map((t) => t.destination), ['Where has {P} travelled?', 'Which places has {P} been to on trips?', 'List the holidays {P} has taken.']);

    // A date.
    const tripMonth = (t: Persona['trips'][number]) => monthName(new Date(dateOf(t.at).getTime() - t.daysBefore * DAY));
    const trip = p.trips.find((t) => p.trips.filter((u) => tripMonth(u) === tripMonth(t)).length === 1);
    if (trip) add('temporal', 'trip', [trip.destination], [`Where did {P} travel in ${tripMonth(trip)}?`, `Which place did {P} visit in ${tripMonth(trip)}?`]);
    const heldThen = (held: Held[]) => {
      for (let i = 0; i < held.length - 1; i++) {
        const month = monthWithin(dateOf(held[i].from), dateOf(held[i + 1].from));
        if (month) return { value: held[i].value, month };
      }
      return undefined;
    };
    const job = heldThen(p.jobs);
    if (job) add('temporal', 'job', [job.value], [`Where was {P} working in ${job.month}?`, `Who employed {P} in ${job.month}?`]);
    const partnerMonth = p.partner && monthWithin(dateOf(p.partner.from), dateOf(p.partner.end?.at ?? own.length - 1));
    const home = heldThen(p.homes);
    if (p.partner && partnerMonth) add('temporal', 'partner', [p.partner.name], [`Who was {P} dating in ${partnerMonth}?`, `Who was {P} seeing in ${partnerMonth}?`]);
    else if (home) add('temporal', 'home', [home.value], [`Which city did {P} live in during ${home.month}?`, `Where was {P} living in ${home.month}?`]);

    // The state as it is now.
    const latest = (held: Held[]) => held[held.length - 1].value;
    const kind = (held: Held[]): QuestionType => (held.length > 1 ? 'latest' : 'single-session');
    add(kind(p.jobs), 'job', [latest(p.jobs)], ['Where does {P} work now?', "Who is {P}'s current employer?", 'What company is {P} at these days?']);
    add(kind(p.homes), 'home', [latest(p.homes)], ['Where does {P} live now?', 'Which city is {P} living in at the moment?', 'Where is {P} based these days?']);
    add(kind(p.clubs), 'club', [latest(p.clubs)], ['What club or class does {P} go to these days?', 'Which weekly activity is {P} doing now?']);
  }
  return questions;
}

function monthName(d: Date): string {
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** A whole calendar month after `from` and before `to` (the middle one when there are several). */
function monthWithin(from: Date, to: Date): string | undefined {
  const months: string[] = [];
  for (let y = from.getUTCFullYear(), m = from.getUTCMonth() + 1; Date.UTC(y, m + 1, 1) <= to.getTime(); m++) {
    if (m === 12) {
      y++;
      m = 0;
    }
    if (Date.UTC(y, m + 1, 1) <= to.getTime()) months.push(monthName(new Date(Date.UTC(y, m, 1))));
  }
  return months.length > 0 ? months[Math.floor(months.length / 2)] : undefined;
}
