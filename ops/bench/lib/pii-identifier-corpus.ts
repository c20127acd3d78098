import { composeIBAN, isValidIBAN } from 'ibantools';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { PiiKind } from '../../../src/pii/pii-kinds.js';
import { SeededRandom } from './seeded-random.js';

/**
 * A labelled corpus of checked identifiers, generated: positives (a value of a known kind written the way
 * people write it, in a sentence) and hard negatives (sentences with numbers that look like identifiers but
 * are not: order numbers, timestamps, versions, UUIDs, prices, failed check digits). The corpus test
 * (test/unit/pii/pii-corpus.test.ts) holds the detectors to every positive and no negative; the masking
 * benchmark (ops/bench/pii-bench.ts) masks the same kind of text.
 */
export interface LabelledValue {
  readonly kind: PiiKind;
  readonly value: string;
  /** A sentence holding the value once. */
  readonly text: string;
}

const TEMPLATES = [
  'Please contact me at {v} before Friday.',
  'My details: {v}',
  '{v} is what the form says.',
  'The customer wrote "{v}" in the notes field.',
  'Use {v}, not the old one.',
  'Record updated (value: {v}) by the import job.',
];

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const HEX = '0123456789abcdef';

export function identifierCorpus(seed = 36, perKind = 70): { positives: LabelledValue[]; negatives: string[] } {
  const random = new SeededRandom(seed);
  const makers: Record<Exclude<PiiKind, 'NAME' | 'ADDRESS'>, () => string> = {
    EMAIL: () => email(random),
    PHONE: () => phone(random),
    CARD: () => card(random),
    IBAN: () => iban(random),
    SSN: () => ssn(random),
    NATIONAL_ID: () => nationalId(random),
    IP: () => (random.next() < 0.5 ? [random.int(1, 223), random.int(0, 255), random.int(0, 255), random.int(1, 254)].join('.') : ipv6(random)),
    SECRET: () => secret(random),
  };
  const positives: LabelledValue[] = [];
  for (const [kind, make] of Object.entries(makers) as Array<[PiiKind, () => string]>) {
    for (let index = 0; index < perKind; index++) {
      const value = make();
      positives.push({ kind, value, text: random.pick(TEMPLATES).replace('{v}', value) });
    }
  }
  return { positives, negatives: hardNegatives(random, perKind * 8) };
}

function email(random: SeededRandom): string {
  const first = random.pick(['jane', 'john', 'li', 'maria', 'o.connor', 'ahmed', 'sam', 'x']);
  const local = random.pick([first, `${first}.${random.pick(['doe', 'smith', 'khan'])}`, `${first}${random.int(1, 999)}`, `${first}+${random.pick(['billing', 'news'])}`, `${first}_${random.int(1, 9)}`]);
  return `${local}@${random.pick(['example.com', 'mail.example.co.uk', 'corp-x.io', 'uni.edu', 'post.de', 'sub.domain.org'])}`;
}

/** A valid number of a few numbering plans, in one of the ways it is written there. */
function phone(random: SeededRandom): string {
  for (;;) {
    const country = random.pick(['US', 'GB', 'DE', 'FR', 'INTL'] as const);
    let text: string;
    if (country === 'US') {
      const [area, exchange, line] = [random.pick(['201', '212', '303', '415', '617', '702', '808']), `${random.int(2, 9)}${random.digits(2)}`, random.digits(4)];
      text = random.pick([`+1 ${area} ${exchange} ${line}`, `(${area}) ${exchange}-${line}`, `${area}-${exchange}-${line}`, `${area}.${exchange}.${line}`, `+1-${area}-${exchange}-${line}`]);
    } else if (country === 'GB') {
      const line = random.digits(3);
      text = random.pick([`+44 20 7946 0${line}`, `020 7946 0${line}`, `+44 7700 900${line}`, `07700 900${line}`]);
    } else if (country === 'DE') {
      const line = `${random.int(2, 9)}${random.digits(6)}`;
      text = random.pick([`+49 30 ${line}`, `030 ${line}`, `0049 30 ${line}`]);
    } else if (country === 'FR') {
      const pairs = Array.from({ length: 4 }, () => random.digits(2)).join(' ');
      text = random.pick([`+33 1 ${pairs}`, `01 ${pairs}`, `+33 6 ${pairs}`, `06 ${pairs}`]);
    } else {
      text = random.pick([`+81 3-${random.int(3000, 6999)}-${random.digits(4)}`, `+61 2 ${random.int(8000, 9999)} ${random.digits(4)}`, `+39 06 ${random.digits(8)}`]);
    }
    const normalized = text.startsWith('00') ? `+${text.slice(2)}` : text;
    const region = country === 'INTL' ? undefined : country;
    if (parsePhoneNumberFromString(normalized, region)?.isValid()) return text;
  }
}

function ssn(random: SeededRandom): string {
  const area = random.next() < 0.5 ? random.int(1, 665) : random.int(667, 899);
  return [String(area).padStart(3, '0'), String(random.int(1, 99)).padStart(2, '0'), String(random.int(1, 9999)).padStart(4, '0')].join(random.pick(['-', ' ']));
}

function luhnDigit(partial: string): string {
  let sum = 0;
  for (let index = 0; index < partial.length; index++) {
    let digit = Number(partial[partial.length - 1 - index]);
    if (index % 2 === 0) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return String((10 - (sum % 10)) % 10);
}

function card(random: SeededRandom): string {
  const [prefix, length] = random.pick([['4', 16], ['51', 16], ['55', 16], ['2221', 16], ['34', 15], ['37', 15], ['6011', 16], ['65', 16], ['3528', 16], ['62', 16]] as const);
  const partial = prefix + random.digits(length - prefix.length - 1);
  const number = partial + luhnDigit(partial);
  const style = random.int(0, 2);
  if (style === 0) return number;
  const separator = style === 1 ? ' ' : '-';
  return length === 15 ? [number.slice(0, 4), number.slice(4, 10), number.slice(10)].join(separator) : number.match(/.{4}/g)!.join(separator);
}

function iban(random: SeededRandom): string {
  const [countryCode, bban] = random.pick([
    ['DE', () => random.digits(18)],
    ['GB', () => `NWBK${random.digits(14)}`],
    ['FR', () => `${random.digits(10)}${random.chars('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 11)}${random.digits(2)}`],
    ['NL', () => `ABNA${random.digits(10)}`],
    ['ES', () => random.digits(20)],
    ['BE', () => random.digits(12)],
  ] as const);
  // some countries check their BBAN too (Belgium, Spain, France): draw until one is a real account number
  for (;;) {
    const composed = composeIBAN({ countryCode, bban: bban() });
    if (composed && isValidIBAN(composed)) return random.next() < 0.5 ? composed : composed.match(/.{1,4}/g)!.join(' ');
  }
}

function nationalId(random: SeededRandom): string {
  switch (random.int(0, 3)) {
    case 0: {
      const partial = `${random.pick(['1', '2', '3', '4', '5', '6', '7', '9'])}${random.digits(7)}`;
      const sin = partial + luhnDigit(partial);
      const separator = random.pick([' ', '-']);
      return [sin.slice(0, 3), sin.slice(3, 6), sin.slice(6)].join(separator);
    }
    case 1: {
      const number = random.int(10_000_000, 99_999_999);
      return `${number}${random.pick(['', '-'])}${'TRWAGMYFPDXBNJZSQVHLCKE'[number % 23]}`;
    }
    case 2: {
      const prefix = random.pick(['X', 'Y', 'Z']);
      const digits = random.digits(7);
      return `${prefix}${digits}${'TRWAGMYFPDXBNJZSQVHLCKE'[Number(`${'XYZ'.indexOf(prefix)}${digits}`) % 23]}`;
    }
    default: {
      let digits = random.digits(9);
      while (/^(\d)\1+$/.test(digits)) digits = random.digits(9);
      for (const length of [9, 10]) {
        let sum = 0;
        for (let index = 0; index < length; index++) sum += Number(digits[index]) * (length + 1 - index);
        const rest = (sum * 10) % 11;
        digits += String(rest === 10 ? 0 : rest);
      }
      return `${digits.slice(0, 3)}.${digits.slice(3, 6)}.${digits.slice(6, 9)}-${digits.slice(9)}`;
    }
  }
}

function ipv6(random: SeededRandom): string {
  const groups = Array.from({ length: 8 }, () => random.chars(HEX, random.int(1, 4)));
  if (random.next() < 0.5) return groups.join(':');
  return `${random.pick(['2001:db8', 'fe80', '2a00:1450'])}::${groups.slice(0, random.int(1, 4)).join(':')}`;
}

function secret(random: SeededRandom): string {
  return random.pick([
    () => `sk-proj-${random.chars(ALNUM, 40)}`,
    () => `sk-ant-api03-${random.chars(ALNUM, 40)}`,
    () => `ghp_${random.chars(ALNUM, 36)}`,
    () => `AKIA${random.chars('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`,
    () => `xoxb-${random.digits(12)}-${random.chars(ALNUM, 24)}`,
    () => `sk_live_${random.chars(ALNUM, 24)}`,
    () => `eyJhbGciOiJIUzI1NiJ9.eyJ${random.chars(ALNUM, 30)}.${random.chars(ALNUM, 43)}`,
  ])();
}

/** Sentences with lookalikes only: nothing in them is a checked identifier. */
function hardNegatives(random: SeededRandom, count: number): string[] {
  const makers: Array<() => string> = [
    () => `Order #${random.digits(8)} shipped; order ${random.int(1, 9)}${random.digits(9)} is pending.`,
    () => `Invoice INV-${random.int(2019, 2026)}-${random.digits(5)} was paid.`,
    () => `Logged at ${random.int(2019, 2026)}-${String(random.int(1, 12)).padStart(2, '0')}-${String(random.int(1, 28)).padStart(2, '0')}T${String(random.int(0, 23)).padStart(2, '0')}:${random.digits(2).replace(/^[6-9]/, '5')}:${random.digits(2).replace(/^[6-9]/, '5')}Z (unix ${random.int(1_500_000_000, 1_800_000_000)}).`,
    () => `The meeting moved to ${String(random.int(1, 28)).padStart(2, '0')}/${String(random.int(1, 12)).padStart(2, '0')}/${random.int(2019, 2026)} at ${random.int(0, 23)}:${random.digits(2).replace(/^[6-9]/, '5')}.`,
    () => `Upgrade to v${random.int(0, 20)}.${random.int(0, 40)}.${random.int(0, 99)}, or version ${random.int(1, 9)}.${random.int(0, 9)}.${random.int(0, 9)}.${random.int(0, 9)}.`,
    () => `Request id ${random.chars(HEX, 8)}-${random.chars(HEX, 4)}-4${random.chars(HEX, 3)}-${random.pick(['8', '9', 'a', 'b'])}${random.chars(HEX, 3)}-${random.chars(HEX, 12)} failed.`,
    () => `It costs $${random.int(1, 9)},${random.digits(3)}.${random.digits(2)} or €${random.int(1, 999)}.${random.digits(2)} (${random.int(1, 99)}% off).`,
    () => {
      const partial = `4${random.digits(14)}`;
      const wrong = (Number(luhnDigit(partial)) + random.int(1, 9)) % 10;
      return `Card on file: ${partial}${wrong} (rejected).`;
    },
    () => {
      const bban = random.digits(18);
      const check = Number(composeIBAN({ countryCode: 'DE', bban })!.slice(2, 4));
      return `Transfer to DE${String(((check + random.int(1, 90)) % 97) + 2).padStart(2, '0')}${bban} bounced.`;
    },
    () => `SSN field held ${random.pick(['000', '666', String(random.int(900, 999))])}-${String(random.int(1, 99)).padStart(2, '0')}-${String(random.int(1, 9999)).padStart(4, '0')}.`,
    () => `Commit ${random.chars(HEX, 40)} and checksum ${random.chars(HEX, 32)}.`,
    () => `Listening on localhost:${random.int(1024, 65535)}, build ${random.int(10, 99)}.${random.int(0, 9)}.${random.int(10000, 99999)}.${random.int(1, 9)}.`,
    () => `ISBN 978-${random.int(0, 9)}-${random.digits(2)}-${random.digits(6)}-${random.int(0, 9)}, page ${random.int(1, 999)}.`,
    () => `Coordinates ${random.int(-89, 89)}.${random.digits(4)}, ${random.int(-179, 179)}.${random.digits(4)}; elevation ${random.int(0, 4000)} m.`,
    () => `Use sk-${random.pick(['learn', 'image', 'test'])} with task-${random.digits(4)} and std::vector<int> a[1::2].`,
    () => `Duration ${String(random.int(0, 23)).padStart(2, '0')}:${random.digits(2).replace(/^[6-9]/, '5')}:${random.digits(2).replace(/^[6-9]/, '5')}, MAC 00:1A:2B:${random.chars('0123456789ABCDEF', 2)}:4D:5E, ${random.int(256, 999)}.${random.int(0, 255)}.${random.int(0, 255)}.${random.int(0, 255)}.`,
  ];
  return Array.from({ length: count }, (_, index) => makers[index % makers.length]!());
}
