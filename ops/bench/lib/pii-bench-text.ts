import { identifierCorpus } from './pii-identifier-corpus.js';
import { languageCorpus } from './pii-language-corpus.js';
import { SeededRandom } from './seeded-random.js';

/**
 * Prompt text for the masking benchmark: ordinary prose and code-like lines, with a sentence holding a
 * checked identifier about every tenth line and a name or address about every fifth, the mix of a support
 * or CRM prompt. The same bytes on every run (seeded).
 */
const PROSE = [
  'Summarise the conversation below and list the open questions for the team.',
  'The deployment finished at 10:42 and version 2.3.1 is now live on every node.',
  'Refactor the function so that it returns early when the input list is empty.',
  'const total = items.reduce((sum, item) => sum + item.price * item.quantity, 0);',
  'Order 55123 was shipped on 2024-03-01 and should arrive within five working days.',
  'Please keep the answer under two hundred words and use a friendly, formal tone.',
  'The quarterly figures improved by 12% compared with the same period last year.',
  'if (response.status >= 500) { retry(request, { attempts: 3, backoffMs: 250 }); }',
];

export function benchText(bytes: number, seed = 36): string {
  const random = new SeededRandom(seed);
  const identifiers = identifierCorpus(seed, 40).positives;
  const sentences = languageCorpus(seed, 200).filter((sentence) => sentence.names.length + sentence.addresses.length > 0);
  const lines: string[] = [];
  let length = 0;
  for (let index = 0; length < bytes; index++) {
    const line = index % 10 === 9 ? random.pick(identifiers).text : index % 5 === 4 ? random.pick(sentences).text : random.pick(PROSE);
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n').slice(0, bytes);
}
