import { Rng } from './rng';
import type { Turn } from './smalltalk';

/**
 * How people tell each other what changed in their lives. Every kind of news has several ways
 * of being said: first person or asked about by the friend, the value named early or late, the
 * old state named or not, with or without a relative date. Questions (questions.ts) are worded
 * apart from these, as someone asking later would word them.
 */

type Say = (rng: Rng, owner: string, friend: string) => Turn[];
const t = (speaker: string, text: string): Turn => ({ speaker, text });

/** "a climbing gym" → "climbing gym": clubs are stored with their article. */
export const bare = (phrase: string) => phrase.replace(/^(?:a|an|the)\s+/i, '');

export function jobStart(employer: string, kind: string, role: string): Say {
  return (rng, o, f) =>
    rng.pick<() => Turn[]>([
      () => [t(o, `I started a new job at ${employer}! I'm a ${role} there.`), t(f, 'Congrats!! What do they do?'), t(o, `It's ${kind}. Small team, nice people.`)],
      () => [t(o, `So I've been working as a ${role} at ${employer} for a few months now. It's ${kind}, if you haven't heard of them.`)],
      () => [t(f, `Are you still doing the ${role} thing?`), t(o, `Yep, still at ${employer}. ${kind[0].toUpperCase()}${kind.slice(1)}, the one by the station.`)],
      () => [t(o, `Work is good. ${employer} is treating me well and being a ${role} suits me.`)],
      () => [t(o, `I finally got the offer from ${employer}. I'm going to be their new ${role}, starting Monday.`), t(f, 'Amazing, you deserve it.')],
    ])();
}

export function jobChange(from: string, to: string, role: string): Say {
  return (rng, o, f) =>
    rng.pick<() => Turn[]>([
      () => [t(o, `Big news: I handed in my notice at ${from}. I'm joining ${to} as a ${role} next month.`), t(f, 'Whoa, good for you!')],
      () => [t(o, `I left ${from} last week. Starting at ${to} on Monday!`), t(f, 'That was quick. Excited?'), t(o, `Nervous, mostly. They hired me as a ${role}.`)],
      () => [t(f, 'How is the new job going?'), t(o, `${to} is so different from ${from}. Much smaller team, and I'm the only ${role}.`)],
      () => [t(o, `I got poached by ${to}! ${role[0].toUpperCase()}${role.slice(1)}, better pay, and no more commute to the ${from} office.`)],
      () => [t(o, `I was laid off from ${from}, the whole department went. Luckily ${to} hired me straight away as a ${role}.`), t(f, 'Oh wow, what a month.')],
      () => [t(o, `Quick update: I work for ${to} now. I'm a ${role} there.`), t(f, 'Since when?'), t(o, 'Since the start of the month.')],
    ])();
}

export function homeInitial(city: string): Say {
  return (rng, o, f) =>
    rng.pick<() => Turn[]>([
      () => [t(o, `I've lived in ${city} for six years now and I still get lost.`)],
      () => [t(o, `My flat in ${city} is tiny, but I love the neighbourhood.`)],
      () => [t(f, `How's life in ${city}?`), t(o, 'Rainy, as usual. But I love it here.')],
      () => [t(o, `The best thing about living in ${city} is the coffee, honestly.`)],
    ])();
}

export function move(from: string, to: string): Say {
  return (rng, o, f) =>
    rng.pick<() => Turn[]>([
      () => [t(o, `We finally did it, I moved from ${from} to ${to} last weekend. Boxes everywhere.`)],
      () => [t(o, `I'm in ${to} now! I signed the lease on a place near the river.`), t(f, 'So you actually left?'), t(o, `Yes, goodbye ${from}.`)],
      () => [t(o, `I said goodbye to ${from}. My new apartment in ${to} is twice the size.`)],
      () => [t(o, `Guess who lives in ${to} now.`), t(f, `No way, you left ${from}?`), t(o, 'Yep, I got sick of the rent.')],
      () => [t(o, `I relocated to ${to} for good. The move went smoothly, for once.`)],
    ])();
}

export function petAdopted(species: string, breed: string, name: string): Say {
  return (rng, o, f) =>
    rng.pick<() => Turn[]>([
      () => [t(o, `We adopted a ${breed} from the shelter! The name is ${name}.`), t(f, 'Pictures please!')],
      () => [t(o, `Meet ${name}, my new ${species}. Chewed my slippers on day one.`)],
      () => [t(o, `I got a ${species}! A ${breed} called ${name}.`), t(f, `${name}, that's adorable.`)],
      () => [t(f, `Did you ever get that ${species} you wanted?`), t(o, `I did! ${name}, a little ${breed}. Total chaos.`)],
    ])();
}

export function clubJoin(club: string): Say {
  return (rng, o) =>
    rng.pick<() => Turn[]>([
      () => [t(o, `I joined ${club}. Tuesdays and Thursdays.`)],
      () => [t(o, `I signed up for ${club}, which I've been meaning to do for years.`)],
      () => [t(o, `I've started going to ${club} and the people are lovely.`)],
    ])();
}

export function clubSwitch(from: string, to: string): Say {
  return (rng, o, f) =>
    rng.pick<() => Turn[]>([
      () => [t(o, `I quit the ${bare(from)}, it just wasn't for me anymore. I've joined ${to} instead.`)],
      () => [t(o, `No more ${bare(from)} for me. I'm doing ${to} now.`), t(f, 'Ooh, how is it?'), t(o, 'So much more fun.')],
      () => [t(o, `I stopped going to the ${bare(from)} after the summer. My new thing is ${to}.`)],
    ])();
}

export function partnerStart(name: string, where: string): Say {
  return (rng, o, f) =>
    rng.pick<() => Turn[]>([
      () => [t(o, `I've been seeing someone. ${name}. We met ${where}.`), t(f, 'WHAT. Tell me everything.')],
      () => [t(o, `${name} and I have been dating for a couple of months now.`), t(f, 'I knew it!')],
      () => [t(o, `So I met ${name} ${where} and we've been going out since.`)],
    ])();
}

export function partnerEnd(name: string, how: 'breakup' | 'engaged'): Say {
  if (how === 'engaged') {
    return (rng, o, f) =>
      rng.pick<() => Turn[]>([
        () => [t(o, `${name} proposed!! We're engaged!`), t(f, 'AAAH congratulations!')],
        () => [t(o, `${name} and I got engaged on the beach. I said yes, obviously.`)],
      ])();
  }
  return (rng, o, f) =>
    rng.pick<() => Turn[]>([
      () => [t(o, `${name} and I broke up.`), t(f, "Oh no, I'm so sorry."), t(o, "It's fine. It was mutual, mostly.")],
      () => [t(o, `I split up with ${name}. We wanted different things.`)],
      () => [t(f, `How are things with ${name}?`), t(o, "Over, actually. We ended it last month.")],
    ])();
}

/** A trip told after it happened, the time said relative to the session ("last weekend"). */
export function trip(destination: string, when: string, relative: string): Say {
  return (rng, o, f) =>
    rng.pick<() => Turn[]>([
      () => [t(o, `I just got back from ${destination}! We went ${when}.`), t(f, 'Jealous. How was it?'), t(o, 'Unreal food, sore feet.')],
      () => [t(o, `${when[0].toUpperCase()}${when.slice(1)} I flew to ${destination} for my ${relative}'s wedding.`)],
      () => [t(o, `Spent ${when} in ${destination}. I'd go back tomorrow.`)],
      () => [t(f, `Wait, were you away ${when}?`), t(o, `Yes! ${destination}, with my ${relative}. Best trip in ages.`)],
    ])();
}

export function episode(kind: string, detail: string, when: string, cause: string): Say {
  const sayings: Record<string, Array<(o: string, f: string) => Turn[]>> = {
    car: [
      (o, f) => [t(o, `My car broke down on the motorway ${when}.`), t(f, 'Nightmare. What was it?'), t(o, `The mechanic said ${detail}.`)],
      (o) => [t(o, `Had to replace ${detail} on my car ${when}. Four hundred quid gone.`)],
    ],
    concert: [
      (o) => [t(o, `I saw ${detail} live ${when}! I still have no voice.`)],
      (o, f) => [t(f, 'Did you end up going to that gig?'), t(o, `Yes, ${detail} ${when}. Incredible show.`)],
    ],
    book: [
      (o) => [t(o, `I'm reading ${detail} right now and I can't put it down.`)],
      (o, f) => [t(f, 'Read anything good lately?'), t(o, `${detail}. Highly recommend.`)],
    ],
    dish: [
      (o) => [t(o, `I tried making ${detail} for the first time ${when}. It actually worked.`)],
      (o, f) => [t(f, 'What did you cook for the dinner party?'), t(o, `${detail[0].toUpperCase()}${detail.slice(1)}. Took me all afternoon.`)],
    ],
    injury: [
      (o) => [t(o, `I ended up with ${detail} ${cause} ${when}.`), t(o, 'So I am on the sofa for a while.')],
      (o, f) => [t(f, 'Why are you limping in your photos?'), t(o, `Oh, ${detail}. Happened ${cause}.`)],
    ],
    course: [
      (o) => [t(o, `I enrolled in an evening course in ${detail}. First class was ${when}.`)],
      (o, f) => [t(f, 'What are you doing on Wednesday nights these days?'), t(o, `${detail[0].toUpperCase()}${detail.slice(1)} lessons! Evening course at the college.`)],
    ],
    purchase: [
      (o) => [t(o, `I treated myself to ${detail} ${when}. No regrets.`)],
      (o, f) => [t(f, 'What was in that enormous box?'), t(o, `${detail[0].toUpperCase()}${detail.slice(1)}! Secondhand but good as new.`)],
    ],
  };
  return (rng, o, f) => rng.pick(sayings[kind])(o, f);
}

/** A friend asking after a state the other told earlier: the value named again, sessions later. */
export function followUp(slot: 'job' | 'home' | 'club', value: string): Say {
  const lines = {
    job: [`How are things at ${value}?`, `Is ${value} still keeping you busy?`, `Any drama at ${value} this week?`],
    home: [`Is it still raining non-stop in ${value}?`, `Found any good restaurants in ${value} yet?`, `How's ${value} treating you?`],
    club: [`Are you still enjoying the ${bare(value)}?`, `How was the ${bare(value)} this week?`],
  };
  return (rng, o, f) => [t(f, rng.pick(lines[slot])), t(o, rng.pick(['Good, thanks!', 'Same as ever.', "Honestly? It's great.", 'Busy, but good.']))];
}
