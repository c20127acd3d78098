import { SeededRandom } from './seeded-random.js';

/**
 * A labelled corpus of sentences with names of people and street addresses, generated from templates of
 * everyday requests, and sentences with neither (capitalised products, places, months, code) to measure
 * false finds. The names and streets below are test data to write sentences with; detection does not use
 * them (it is compromise's). The corpus test measures recall and precision on it.
 */
export interface LabelledSentence {
  readonly text: string;
  readonly names: readonly string[];
  readonly addresses: readonly string[];
}

const FIRST = ['James', 'Mary', 'Robert', 'Patricia', 'Jennifer', 'Michael', 'Linda', 'David', 'Elizabeth', 'Sarah', 'Daniel', 'Emily', 'Olivia', 'Noah', 'Liam', 'Sophia', 'Priya', 'Ahmed', 'Fatima', 'Carlos', 'Lucia', 'Hiroshi', 'Olga', 'Ivan', 'Grace', 'Thomas', 'Anna', 'Peter'];
const LAST = ['Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez', 'Patel', 'Chen', 'Kim', 'Nguyen', 'Khan', 'Rossi', 'Silva', 'Tanaka', 'Ivanova', 'Wilson', 'Anderson', 'Taylor', 'Moore', 'Clark'];
const STREETS = ['Baker', 'Elm', 'Oak', 'Maple', 'Pennsylvania', 'Main', 'High', 'Church', 'Park', 'Cedar', 'Washington', 'Lincoln', 'Sunset', 'Hill'];
const SUFFIXES = ['Street', 'St', 'Avenue', 'Ave', 'Road', 'Rd', 'Lane', 'Drive', 'Boulevard', 'Way', 'Court'];
const CITIES = ['Springfield', 'London', 'Austin', 'Denver', 'Boston', 'Leeds'];

const WITH_NAME = [
  'Please forward the contract to {n} by Monday.',
  '{n} called about the delayed shipment.',
  'Our new hire, {n}, starts next week.',
  'Can you draft a reply to {n} about the refund?',
  'The ticket was opened by {n} yesterday.',
  'Thanks to {n} for reviewing the pull request.',
];
const WITH_ADDRESS = ['Ship the replacement to {a}, {c}.', 'The office moved to {a} last year.', 'Deliver the parcel to {a} before noon.'];
const WITH_BOTH = ['{n} lives at {a}, {c}.', 'Send the invoice to {n} at {a}.', 'Please update the record: {n}, {a}, {c}.'];
const WITHOUT = [
  'The quarterly report is due in March.',
  'Apple released a new version of Safari on Tuesday.',
  'Run npm install, then restart the server on port 8080.',
  'The function parseUserName returns the first name.',
  'Grace period ends on Friday for all accounts.',
  'We shipped version 2.3.1 with the new parser.',
  'Amazon and Google both offer managed Postgres.',
  'The team in Paris reviewed the design document.',
  'Summarise the meeting notes in three bullet points.',
  'Translate this paragraph into German, keeping the tone formal.',
  'The warehouse on the north side is closed for inventory.',
  'Refactor the payment module and add unit tests.',
];

export function languageCorpus(seed = 36, count = 400): LabelledSentence[] {
  const random = new SeededRandom(seed);
  const sentences: LabelledSentence[] = [];
  for (let index = 0; index < count; index++) {
    const name = `${random.pick(FIRST)} ${random.pick(LAST)}`;
    const address = `${random.int(1, 2999)} ${random.pick(STREETS)} ${random.pick(SUFFIXES)}`;
    const city = random.pick(CITIES);
    const kind = index % 4;
    if (kind === 3) {
      sentences.push({ text: random.pick(WITHOUT), names: [], addresses: [] });
      continue;
    }
    const template = random.pick(kind === 0 ? WITH_NAME : kind === 1 ? WITH_ADDRESS : WITH_BOTH);
    const text = template.replace('{n}', name).replace('{a}', address).replace('{c}', city);
    sentences.push({ text, names: template.includes('{n}') ? [name] : [], addresses: template.includes('{a}') ? [address] : [] });
  }
  return sentences;
}
