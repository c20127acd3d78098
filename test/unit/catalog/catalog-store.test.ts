import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { CatalogStore } from '../../../src/catalog/catalog-store.js';

describe('CatalogStore', () => {
  let directory: string;
  before(() => (directory = mkdtempSync(join(tmpdir(), 'gw-catalog-'))));
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('names every provider whose key variable is unset in one warning line at start', async () => {
    const file = join(directory, 'catalog.yaml');
    writeFileSync(
      file,
      [
        'providers:',
        '  openai: { kind: openai, base_url: "https://api.openai.com/v1", api_key_env: GW_TEST_UNSET_OPENAI_KEY }',
        '  anthropic: { kind: anthropic, base_url: "https://api.anthropic.com", api_key_env: GW_TEST_UNSET_ANTHROPIC_KEY }',
        '  local: { kind: openai-compatible, base_url: "http://127.0.0.1:9/v1", formats: [chat] }',
        'models:',
        '  - { id: openai/gpt-4o-mini, category: text, pricing: { input_per_mtok: "0.15", output_per_mtok: "0.60" } }',
        '',
      ].join('\n'),
    );
    const lines: Array<{ level: number; msg: string; providers?: string[] }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    await CatalogStore.open(file, logger);
    const warnings = lines.filter((line) => line.level === 40);
    expect(warnings).to.have.length(1);
    expect(warnings[0]!.providers).to.deep.equal(['openai', 'anthropic']);
    expect(warnings[0]!.msg).to.contain('openai (GW_TEST_UNSET_OPENAI_KEY is not set)').and.to.contain('anthropic (GW_TEST_UNSET_ANTHROPIC_KEY is not set)');
  });
});
