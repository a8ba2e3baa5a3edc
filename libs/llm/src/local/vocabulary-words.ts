/**
 * The words of the vocabulary (`vocabulary.ts`): nouns and verbs whose meaning decides the name
 * of a fact ("a nurse at" is a job, "a regular at" is not; "hangs in" says where a thing is).
 */

/** Roles an organization gives one person at a time, or a few: "the CEO of Acme" → `ceo_of`. */
export const OFFICE_ROLES: ReadonlySet<string> = new Set(
  (
    'ceo cto cfo coo cio president vice-president chairman chairwoman chair director head manager principal headteacher headmaster headmistress mayor ' +
    'captain coach editor dean governor treasurer secretary chancellor founder cofounder co-founder'
  ).split(/\s+/),
);

/** Nouns of a person's relation to another person: "Jorge is Maria's husband" → `married_to`. */
export const PERSONAL_NOUNS: Readonly<Record<string, string>> = {
  husband: 'married_to',
  wife: 'married_to',
  spouse: 'married_to',
  girlfriend: 'dates',
  boyfriend: 'dates',
  partner: 'dates',
  fiance: 'engaged_to',
  fiancee: 'engaged_to',
  'fiancé': 'engaged_to',
  'fiancée': 'engaged_to',
  friend: 'friends_with',
  relationship: 'dates',
  ex: 'dates',
};

/** Nouns after "is a … at/of" that name what the fact is, other than a job. */
export const COPULA_NOUNS: Readonly<Record<string, string>> = {
  student: 'studies_at',
  pupil: 'studies_at',
  undergraduate: 'studies_at',
  postgraduate: 'studies_at',
  volunteer: 'volunteers_at',
  guest: 'stays_at',
  member: 'member_of',
  owner: 'owns',
  resident: 'lives_in',
  tenant: 'lives_in',
  graduate: 'graduated_from',
  alumnus: 'graduated_from',
  alumna: 'graduated_from',
  custody: 'held_at',
  inmate: 'held_at',
  prisoner: 'held_at',
  boarder: 'studies_at',
  player: 'plays_for',
  footballer: 'plays_for',
  striker: 'plays_for',
  goalkeeper: 'plays_for',
  midfielder: 'plays_for',
  defender: 'plays_for',
  winger: 'plays_for',
  landlord: 'owns',
  landlady: 'owns',
  proprietor: 'owns',
};
/** "WidgetCo is a subsidiary of Acme": Acme owns it. */
/** A home one has, owns, rents or sells somewhere ("a flat in Leeds"). */
export const HOME_NOUNS: ReadonlySet<string> = new Set(['flat', 'apartment', 'house', 'room', 'home', 'studio']);

export const OWNED_NOUNS = new Set(['subsidiary', 'division', 'imprint', 'affiliate', 'brand']);

/** Things one has and names ("has a yacht called Seabird", "has a dog named Rex"): having one is owning it. */
export const OWNABLE_NOUNS: ReadonlySet<string> = new Set(
  'car boat bike motorbike motorcycle scooter van truck yacht horse pony dog cat cottage villa shop business restaurant pub bakery cafe café farm painting'.split(' '),
);

/** Nouns of a job: "took a job at", "quit her job at", "started a new position with". */
export const JOB_NOUNS: ReadonlySet<string> = new Set(
  'job position post role internship apprenticeship placement career membership lectureship professorship fellowship residency traineeship clerkship'.split(' '),
);
export const JOB_TAKING = new Set(['take', 'get', 'start', 'accept', 'land', 'find', 'begin', 'secure', 'have', 'hold']);
export const JOB_LEAVING = new Set(['quit', 'leave', 'lose', 'resign', 'end', 'give', 'cancel', 'terminate', 'complete', 'finish']);
/** "completed her training at", "finished her PhD at": the studies are over. */
export const STUDY_NOUNS: ReadonlySet<string> = new Set('training studies study degree phd doctorate course masters programme program education'.split(' '));
export const FINISHING = new Set(['complete', 'finish', 'end', 'conclude']);
export const STUDYING = new Set(['do', 'pursue', 'take', 'start', 'begin', 'study']);
/** "on the board of", "part of": a body a person belongs to; "on the staff of": works there. */
export const BODY_NOUNS: ReadonlySet<string> = new Set(['board', 'committee', 'council', 'panel', 'part', 'jury', 'cabinet', 'team', 'squad', 'crew']);
export const STAFF_NOUNS = new Set(['staff', 'faculty', 'payroll', 'workforce']);
/** "is being treated at", "was hospitalised in" (with the stems the regular past leaves of the latter). */
export const HOSPITAL_VERBS = new Set(['treat', 'hospitalise', 'hospitalize', 'hospitalis', 'hospitaliz']);
/** Sports a person does for a club: "rows for Leander Club", "races for Ferrari". */
export const SPORT_VERBS = new Set(['row', 'swim', 'ride', 'race', 'cycle', 'skate', 'bowl', 'ski', 'sprint']);
/** Nouns of someone at an organization who does not work there. */
export const NOT_JOBS = new Set(
  'regular customer client visitor speaker fan spectator participant delegate attendee winner finalist competitor contestant investor shareholder supplier holder subscriber patron supporter donor passenger'.split(
    ' ',
  ),
);
/** "Acme's headquarters", "has its head office in". */
export const HEADQUARTERS_NOUNS: ReadonlySet<string> = new Set(['headquarters', 'headquarter', 'hq', 'office', 'base']);

/** The last word of a group's name: "the Hillside Chess Club", "the Labour Party", "the Royal Navy". */
export const GROUP_HEADS = new Set(
  'club society party union band choir chorus orchestra philharmonic ensemble quartet troupe committee association league guild council federation circle lodge group army navy corps marines'.split(' '),
);
export const SCHOOL_HEADS = new Set('school college university academy elementary primary secondary high kindergarten institute polytechnic seminary'.split(' '));
export const POSITION_VERBS = new Set(
  'hang sit stand lie dock moor berth anchor park house keep store display exhibit station locate situate show host'.split(' '),
);
/** Verbs of where a thing is, said actively of the thing ("The Night Watch hangs in the Rijksmuseum"). */
export const STANDING_VERBS = new Set(['hang', 'sit', 'stand', 'lie', 'rest', 'dock', 'moor', 'berth']);
/** Verbs of changing to another one of the same kind ("switched to Dr. Kapoor"). */
export const SWITCHING_VERBS = new Set(['switch', 'change', 'move', 'transfer', 'go']);
/** Titles of a physician before a name. */
export const PHYSICIAN_TITLES = new Set(['dr', 'doctor']);
/** Verbs that move a thing (or a company) from one place to another. */
export const MOVING_VERBS = new Set(['move', 'relocate', 'transfer', 'take', 'bring', 'send', 'ship', 'sail', 'tow', 'migrate']);
/** Verbs of an employer ending a job (or a club a player's contract, a hospital a stay). */
export const DISMISSING_VERBS: Readonly<Record<string, string>> = {
  fire: 'fired_from',
  sack: 'fired_from',
  dismiss: 'fired_from',
  'lay off': 'laid_off_from',
  'let go': 'laid_off_from',
  'make redundant': 'laid_off_from',
  release: 'released_from',
  expel: 'expelled_from',
  'kick out': 'expelled_from',
  'strike off': 'expelled_from',
  'throw out': 'expelled_from',
};
/** Verbs of an employer taking someone on: "Meta hired Priya" → Priya `hired_by` Meta. */
export const HIRING_VERBS: Readonly<Record<string, string>> = {
  hire: 'hired_by',
  recruit: 'hired_by',
  poach: 'hired_by',
  headhunt: 'hired_by',
  employ: 'hired_by',
  sign: 'signed_for',
};
/** "handed in her notice at Google", "tendered his resignation to Acme". */
export const NOTICE_NOUNS = new Set(['notice', 'resignation']);
export const GIVING_NOTICE = new Set(['hand', 'give', 'submit', 'tender', 'announce']);
/** Verbs of a couple parting; said of two people ("Kate and Josh broke up"). */
export const PARTING_VERBS: Readonly<Record<string, string>> = {
  divorce: 'divorced',
  separate: 'broke_up_with',
  split: 'broke_up_with',
  'split up': 'broke_up_with',
  'break up': 'broke_up_with',
  break: 'broke_up_with',
  dump: 'broke_up_with',
};

/** "got the boot", "got the sack from the Mirror": the noun of a dismissal. */
export const DISMISSAL_NOUNS = new Set(['boot', 'sack', 'push', 'chop', 'axe', 'heave-ho']);

/** "lost the captaincy of the Tigers": the office named as a noun of its own. */
export const OFFICES: Readonly<Record<string, string>> = {
  captaincy: 'captain',
  presidency: 'president',
  chairmanship: 'chairman',
  chairmanships: 'chairman',
  directorship: 'director',
  mayoralty: 'mayor',
  governorship: 'governor',
  editorship: 'editor',
  deanship: 'dean',
  treasurership: 'treasurer',
};

/** Who plays in a band: a member of it, not its employee ("Neon Gulls' ex-drummer Harvey"). */
export const MUSICIAN_NOUNS = new Set(['drummer', 'guitarist', 'bassist', 'singer', 'vocalist', 'keyboardist', 'pianist', 'frontman', 'frontwoman', 'saxophonist', 'trumpeter', 'violinist', 'cellist', 'fiddler']);
