import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { errorCatalogue, errorTypeForStatus } from '../../../src/errors/error-catalogue.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { renderMessagesError, renderOpenAiError } from '../../../src/errors/render-error.js';

/** The API contract, and the client guide that documents each code for client developers. */
const SPEC = 'docs/gateway-api.md';
const CLIENT_GUIDE = 'docs/client-guide.md';
const catalogueCodes = Object.keys(errorCatalogue);

/** The rows of a markdown table under `heading`, as arrays of cells. */
function tableRows(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(heading);
  if (start < 0) throw new Error(`heading ${heading} not found`);
  const rows: string[][] = [];
  for (const line of markdown.slice(start).split('\n').slice(1)) {
    if (line.startsWith('#')) break;
    if (!line.startsWith('|') || /^\|\s*-/.test(line)) continue;
    rows.push(line.split('|').slice(1, -1).map((cell) => cell.trim()));
  }
  return rows.slice(1); // header row
}

describe('error catalogue', () => {
  describe('against the spec', () => {
    it('contains every code of spec section 7.2', () => {
      const specCodes = tableRows(readFileSync(SPEC, 'utf8'), '### 7.2 Codes').map(([code]) => code!);
      expect(specCodes.length).to.be.greaterThan(10);
      for (const code of specCodes) expect(catalogueCodes, `spec code ${code}`).to.include(code);
    });

    it('gives each code the status and type of spec section 7.1', () => {
      for (const [statuses, type, codes] of tableRows(readFileSync(SPEC, 'utf8'), '### 7.1 Status to type')) {
        for (const code of codes!.match(/`([a-z_]+)`/g)?.map((quoted) => quoted.slice(1, -1)) ?? []) {
          const definition = errorCatalogue[code as keyof typeof errorCatalogue];
          expect(definition, code).to.exist;
          expect(statuses, code).to.contain(String(definition.status));
          expect(errorTypeForStatus(definition.status), code).to.equal(type);
        }
      }
    });
  });

  it('documents every code of the catalogue in the client guide, with what to do about it', () => {
    const guide = readFileSync(CLIENT_GUIDE, 'utf8');
    const rows = tableRows(guide, '### Error codes');
    const documented = rows.map(([code]) => code!.replace(/`/g, ''));
    expect(documented.length).to.be.greaterThan(0);
    for (const code of catalogueCodes) expect(documented, `the client guide's error table lacks ${code}`).to.include(code);
    for (const code of documented) expect(catalogueCodes, `the client guide documents unknown code ${code}`).to.include(code);
    for (const row of rows) expect(row[4], `what to do about ${row[0]}`).to.be.a('string').and.not.equal('');
  });

  it('gives the client guide status of each code', () => {
    const guide = readFileSync(CLIENT_GUIDE, 'utf8');
    for (const [code, status] of tableRows(guide, '### Error codes')) {
      const definition = errorCatalogue[code!.replace(/`/g, '') as keyof typeof errorCatalogue];
      expect(String(definition.status), code).to.equal(status);
    }
  });

  it('renders the OpenAI style with type, code and message', () => {
    const error = new GatewayError('insufficient_funds');
    expect(renderOpenAiError(error)).to.deep.equal({
      error: { type: 'insufficient_quota_error', code: 'insufficient_funds', message: 'organization balance insufficient for this request', param: null },
    });
    expect(error.status).to.equal(402);
  });

  it('renders the messages style without a code', () => {
    expect(renderMessagesError(new GatewayError('model_not_found', 'no model x'))).to.deep.equal({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'no model x' },
    });
  });

  it('keeps the code in the messages style only for key_revoked', () => {
    expect(renderMessagesError(new GatewayError('key_revoked'))).to.deep.equal({
      type: 'error',
      error: { type: 'authentication_error', message: errorCatalogue.key_revoked.message, code: 'key_revoked' },
    });
  });
});
