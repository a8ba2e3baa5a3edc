import { Rng } from './rng';

/**
 * What friends say between the things worth remembering: greetings, the weather, television,
 * errands, complaints about work in general. It carries none of a persona's facts, but it does
 * use the words questions use ("work", "moving", "trip", "weekend"), as real chat does, so a
 * ranker cannot find the evidence by those words alone.
 */

const OPENERS = [
  'Hey {other}! How are you?', 'Hi! Long time no chat.', 'Morning! Got a minute?', 'Hey, how was your week?', 'Hello hello. Are you free to talk?',
  'Hiya {other}, sorry I went quiet for a bit.', 'Evening! How did the week treat you?', 'Oh hey, perfect timing, I was about to message you.',
];

const OPENER_REPLIES = [
  'Good, thanks! Busy as always.', "Not bad at all. You?", 'Hey! Tired but fine.', 'All good here. What have you been up to?',
  "I'm alright, it's been a long one.", 'Hi! Yes, just made a cup of tea.',
];

const REMARKS = [
  "It's been pouring all week here, I haven't seen the sun since Tuesday.",
  'Did you watch the match on Sunday? What a finish.',
  'Work has been relentless lately, everyone wants everything yesterday.',
  'I binge-watched the whole season of that detective show in two days.',
  'My neighbour is renovating again. The drilling starts at seven in the morning.',
  'I really need a holiday, even just a long weekend somewhere quiet.',
  'Traffic this morning was awful, it took me an hour to get anywhere.',
  'I finally fixed the leaky tap in the bathroom. Felt like a genius.',
  "I've been trying to drink less coffee. It's not going well.",
  "It's my turn to host game night and I have no idea what to cook.",
  "Have you tried that new Thai place on the corner? The green curry is great.",
  'My phone screen cracked again, third time this year.',
  "I spent the whole weekend doing laundry and meal prep, very glamorous.",
  'The heating in the office broke so we all worked in our coats.',
  "I keep meaning to call my grandmother more often.",
  "Someone at work brought in homemade brownies and I had three.",
  'I went for a long walk by the river, the leaves are turning already.',
  "Our internet was down for two days. I had to actually read a book.",
  "I've started doing yoga videos in the mornings, only ten minutes though.",
  'Moving furniture around the living room has become my new hobby apparently.',
  "There's a street festival this weekend, might check it out.",
  'I tried a new recipe and set off the smoke alarm. Classic.',
  'My plants are finally alive. Two months without killing one.',
  'The trains were on strike again so I worked from home.',
  "I've been sleeping terribly, too much screen time I think.",
  'We had a power cut last night, ended up playing cards by candlelight.',
  'Booked a dentist appointment, which is my big achievement of the month.',
  "I can't believe how expensive groceries have got.",
  'Everyone at work is off sick with the same cold.',
  "Planning a trip is so much work, I've had twenty tabs open all evening.",
  'I watched a documentary about octopuses and now I can’t stop talking about them.',
  "The gym was packed, it's always like that in January.",
];

const REACTIONS = [
  'Ha, same here.', 'Oh no!', 'That sounds lovely.', 'Tell me about it.', 'I know, right?', 'Haha, classic.', 'Fingers crossed.',
  'Ugh, I feel that.', 'Honestly, good for you.', "That's so funny.", 'Oof. Hang in there.', 'Wait, really?', 'Nice!',
];

const CLOSERS = [
  'Anyway, I have to run. Talk soon!', "Let's catch up again next week.", 'Right, dinner is calling. Bye!', 'Speak soon, take care.',
  "I'd better get some sleep. Night!", 'Okay, off to my meeting. Chat later!',
];

const CLOSER_REPLIES = ['Bye! Take care.', 'Talk soon!', 'Night night.', 'See you!', 'Later!'];

export type Turn = { speaker: string; text: string };

export function opening(rng: Rng, first: string, second: string): Turn[] {
  return [
    { speaker: first, text: rng.pick(OPENERS).replace('{other}', second) },
    { speaker: second, text: rng.pick(OPENER_REPLIES) },
  ];
}

export function closing(rng: Rng, first: string, second: string): Turn[] {
  return [
    { speaker: first, text: rng.pick(CLOSERS) },
    { speaker: second, text: rng.pick(CLOSER_REPLIES) },
  ];
}

/** One remark and, usually, a reaction from the other speaker. */
export function chatter(rng: Rng, speaker: string, listener: string): Turn[] {
  const turns = [{ speaker, text: rng.pick(REMARKS) }];
  if (rng.chance(0.7)) turns.push({ speaker: listener, text: rng.pick(REACTIONS) });
  return turns;
}

const NEWS_REACTIONS = ['Wow!', 'No way!', 'That is huge.', 'Oh, interesting.', 'Good for you!', 'I did not see that coming.', 'Ha, of course you did.', 'Tell me more next time.'];

/** A reaction to news, from the listener. */
export function reaction(rng: Rng, listener: string): Turn {
  return { speaker: listener, text: rng.pick(NEWS_REACTIONS) };
}
