import { expect } from 'chai';
import { identifierCorpus } from '../../../ops/bench/lib/pii-identifier-corpus.js';
import { languageCorpus } from '../../../ops/bench/lib/pii-language-corpus.js';
import { parseSegment } from '../../../src/pii/detectors/english-entities.js';
import { personNames } from '../../../src/pii/detectors/person-name-detector.js';
import { streetAddresses } from '../../../src/pii/detectors/street-address-detector.js';
import type { PiiKind, PiiSpan } from '../../../src/pii/pii-kinds.js';
import { findIdentifiers, withoutOverlaps } from '../../../src/pii/text-masker.js';

/**
 * The labelled corpus (ops/bench/lib/pii-*-corpus.ts), generated here: every checked identifier must be
 * found whole, as its own kind, and no hard negative may be touched (recall 100 %, no false positive). Names
 * and street addresses are a model's best effort: their recall and precision are measured, printed, and
 * held to floors a little under the figures in docs/client-guide.md, so that a change that lowers them fails.
 */
describe('pii: the labelled corpus', function () {
  this.timeout(120_000);

  it('checked identifiers: at least 500 positives all found whole as their kind; 500 hard negatives untouched', () => {
    const { positives, negatives } = identifierCorpus();
    expect(positives.length).to.be.at.least(500);
    expect(negatives.length).to.be.at.least(500);
    const missed = positives.filter(({ kind, value, text }) => {
      const start = text.indexOf(value);
      return !withoutOverlaps(findIdentifiers(text)).some((span) => span.kind === kind && span.start === start && span.end === start + value.length);
    });
    expect(missed.map(({ kind, text }) => `${kind}: ${text}`)).to.deep.equal([]);
    const touched = negatives.filter((text) => findIdentifiers(text).length > 0);
    expect(touched.map((text) => `${text} → ${findIdentifiers(text).map((span) => `${span.kind} ${text.slice(span.start, span.end)}`).join(', ')}`)).to.deep.equal([]);
  });

  it('names and street addresses: recall and precision measured on 400 sentences', () => {
    const sentences = languageCorpus();
    const figures = { NAME: score(), ADDRESS: score() };
    for (const sentence of sentences) {
      const parsed = parseSegment({ text: sentence.text, start: 0 });
      const found = withoutOverlaps([...streetAddresses(parsed), ...personNames(parsed)]);
      tally(figures.NAME, sentence.text, sentence.names, found, 'NAME');
      tally(figures.ADDRESS, sentence.text, sentence.addresses, found, 'ADDRESS');
    }
    const measured = Object.fromEntries(Object.entries(figures).map(([kind, f]) => [kind, { recall: f.found / f.expected, precision: f.right / f.reported, values: f.expected }]));
    process.stdout.write(`      measured: ${JSON.stringify(measured)}\n`);
    expect(figures.NAME.expected).to.be.at.least(150);
    expect(figures.ADDRESS.expected).to.be.at.least(150);
    // measured (docs/client-guide.md): names recall 99.0 %, precision 85.1 %; addresses recall 87.5 %, precision 100 %
    expect(measured.NAME!.recall, 'names recall').to.be.at.least(0.95);
    expect(measured.NAME!.precision, 'names precision').to.be.at.least(0.8);
    expect(measured.ADDRESS!.recall, 'addresses recall').to.be.at.least(0.85);
    expect(measured.ADDRESS!.precision, 'addresses precision').to.be.at.least(0.95);
  });
});

interface Score {
  expected: number;
  found: number;
  reported: number;
  right: number;
}

const score = (): Score => ({ expected: 0, found: 0, reported: 0, right: 0 });

/** A value counts as found when one span of its kind covers all of it; a span is right when it overlaps a value of its kind. */
function tally(figures: Score, text: string, values: readonly string[], spans: readonly PiiSpan[], kind: PiiKind): void {
  const ranges = values.map((value) => ({ start: text.indexOf(value), end: text.indexOf(value) + value.length }));
  const ofKind = spans.filter((span) => span.kind === kind);
  figures.expected += ranges.length;
  figures.found += ranges.filter((range) => ofKind.some((span) => span.start <= range.start && span.end >= range.end)).length;
  figures.reported += ofKind.length;
  figures.right += ofKind.filter((span) => ranges.some((range) => span.start < range.end && range.start < span.end)).length;
}
