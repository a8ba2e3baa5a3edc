/**
 * What the generated conversations talk about: people, employers, places, pets, clubs and the
 * episodes of ordinary lives. Names are invented or common; places are real cities. Pools are
 * larger than one seed uses, so two seeds give different worlds, and shared between personas,
 * so two people can work at the same firm or travel to the same city (as people do): retrieval
 * must tell them apart by who said it, not by which words only one of them uses.
 */

export const FIRST_NAMES = [
  'Maya', 'Jonah', 'Priya', 'Tomasz', 'Aisha', 'Diego', 'Hannah', 'Kwame', 'Sofia', 'Liam', 'Mei', 'Omar', 'Greta', 'Rafael',
  'Nadia', 'Elliot', 'Yuki', 'Samir', 'Clara', 'Tobias', 'Ines', 'Marcus', 'Leila', 'Anton',
];

/** Partners and relatives named in passing: never a persona's own name. */
export const OTHER_NAMES = [
  'Felix', 'Rosa', 'Jamal', 'Elena', 'Noah', 'Zara', 'Victor', 'Lucia', 'Ben', 'Amara', 'Ivan', 'Chloe', 'Mateo', 'Freya', 'Hugo',
  'Alma',
];

export interface Employer {
  name: string;
  /** What the firm does, said when a persona first names it. */
  kind: string;
}

export const EMPLOYERS: Employer[] = [
  { name: 'Northwind Logistics', kind: 'a shipping company' },
  { name: 'Brightwater Labs', kind: 'a biotech startup' },
  { name: 'Cobalt Health', kind: 'a hospital group' },
  { name: 'Harbor Bank', kind: 'a regional bank' },
  { name: 'Meridian Games', kind: 'a video game studio' },
  { name: 'Tidewell Energy', kind: 'a solar installer' },
  { name: 'Oakridge Academy', kind: 'a secondary school' },
  { name: 'Pinecrest Architects', kind: 'an architecture firm' },
  { name: 'Lumen Analytics', kind: 'a data consultancy' },
  { name: 'Redfern Publishing', kind: 'a publisher' },
  { name: 'Saltmarsh Bakery', kind: 'a chain of bakeries' },
  { name: 'Vantage Robotics', kind: 'a robotics company' },
  { name: 'Greenleaf Council', kind: 'the city council' },
  { name: 'Quarry Lane Studios', kind: 'a design agency' },
];

export const ROLES = [
  'nurse', 'software engineer', 'product manager', 'accountant', 'teacher', 'graphic designer', 'data analyst', 'project manager',
  'lab technician', 'copy editor', 'sales lead', 'operations manager',
];

export const CITIES = [
  'Lisbon', 'Denver', 'Toronto', 'Leeds', 'Melbourne', 'Austin', 'Glasgow', 'Portland', 'Rotterdam', 'Montreal', 'Seattle', 'Dublin',
  'Vancouver', 'Manchester', 'Chicago', 'Wellington',
];

/** Places people go on holiday to; some are also cities people live in. */
export const DESTINATIONS = [
  'Kyoto', 'Marrakech', 'Reykjavik', 'Lisbon', 'Crete', 'Mexico City', 'the Scottish Highlands', 'Vienna', 'Cape Town', 'Hanoi',
  'the Amalfi Coast', 'Prague', 'Buenos Aires', 'Seoul', 'Tasmania', 'Istanbul',
];

export interface Pet {
  species: string;
  breeds: string[];
}

export const PETS: Pet[] = [
  { species: 'dog', breeds: ['beagle', 'border collie', 'labrador', 'greyhound', 'corgi'] },
  { species: 'cat', breeds: ['tabby', 'Maine Coon', 'ginger cat', 'Siamese'] },
  { species: 'rabbit', breeds: ['lop-eared rabbit', 'dwarf rabbit'] },
];

export const PET_NAMES = ['Biscuit', 'Pepper', 'Juniper', 'Mochi', 'Otis', 'Clementine', 'Waffles', 'Hazel', 'Ziggy', 'Nutmeg', 'Bruno', 'Luna'];

/** Clubs and groups: a persona belongs to one at a time. */
export const CLUBS = [
  'a climbing gym', 'a community choir', 'a running club', 'a book club', 'a pottery class', 'a chess club', 'a salsa class',
  'a volunteer fire brigade', 'a five-a-side football team', 'an improv troupe', 'a cycling club', 'a birdwatching group',
];

/** One-off episodes: a single session tells each, with a detail a question can ask for. */
export interface Episode {
  kind: string;
  /** Details one of which the episode names. */
  details: string[];
}

export const EPISODES: Episode[] = [
  { kind: 'car', details: ['the alternator', 'the timing belt', 'the battery', 'the brake pads', 'the clutch'] },
  { kind: 'concert', details: ['Arctic Monkeys', 'Florence and the Machine', 'Fleetwood Mac tribute band', 'Radiohead', 'Lizzo', 'Hozier'] },
  { kind: 'book', details: ['Circe', 'The Overstory', 'Project Hail Mary', 'Educated', 'Piranesi', 'Klara and the Sun'] },
  { kind: 'dish', details: ['ramen from scratch', 'a Georgian khachapuri', 'sourdough bread', 'paella', 'a beef wellington'] },
  { kind: 'injury', details: ['a sprained ankle', 'a broken wrist', 'a pulled hamstring', 'a dislocated finger'] },
  { kind: 'course', details: ['Spanish', 'photography', 'woodworking', 'sign language', 'Italian', 'first aid'] },
  { kind: 'purchase', details: ['an electric bike', 'a secondhand piano', 'a kayak', 'a telescope', 'a sewing machine'] },
];

export const INJURY_CAUSES = ['playing football', 'on a hike', 'slipping on ice', 'at the climbing wall', 'moving furniture'];

export const RELATIVES = ['sister', 'brother', 'cousin', 'best friend', 'mum', 'dad'];
