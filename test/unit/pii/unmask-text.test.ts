import { expect } from 'chai';
import { Placeholders } from '../../../src/pii/placeholders.js';
import { unmaskJson, unmaskText } from '../../../src/pii/unmask-text.js';

describe('pii: unmasking an answer', () => {
  const placeholders = new Placeholders();
  placeholders.placeholderFor('EMAIL', 'jane@example.com');
  placeholders.placeholderFor('NAME', 'Jo "JJ" Smith');

  it('gives the values back, and leaves a placeholder this request never gave out as the model wrote it', () => {
    expect(unmaskText('Dear [NAME_1], I wrote to [EMAIL_1] and [EMAIL_7] and [PHONE_1].', placeholders)).to.equal('Dear Jo "JJ" Smith, I wrote to jane@example.com and [EMAIL_7] and [PHONE_1].');
  });

  it('escapes a value inside JSON text: tool-call arguments stay valid JSON', () => {
    const args = unmaskText('{"to":"[EMAIL_1]","name":"[NAME_1]"}', placeholders, true);
    expect(JSON.parse(args)).to.deep.equal({ to: 'jane@example.com', name: 'Jo "JJ" Smith' });
  });

  it('walks a whole answer: every string, arguments as JSON text, keys and other values untouched', () => {
    const answer = {
      id: 'chatcmpl-1',
      choices: [{ message: { content: 'Hi [NAME_1]', tool_calls: [{ function: { name: 'mail', arguments: '{"to":"[NAME_1]"}' } }] }, index: 0 }],
      content: [{ type: 'tool_use', input: { to: '[EMAIL_1]', nested: ['[NAME_1]'] } }],
      usage: { prompt_tokens: 3 },
    };
    expect(unmaskJson(answer, placeholders)).to.deep.equal({
      id: 'chatcmpl-1',
      choices: [{ message: { content: 'Hi Jo "JJ" Smith', tool_calls: [{ function: { name: 'mail', arguments: '{"to":"Jo \\"JJ\\" Smith"}' } }] }, index: 0 }],
      content: [{ type: 'tool_use', input: { to: 'jane@example.com', nested: ['Jo "JJ" Smith'] } }],
      usage: { prompt_tokens: 3 },
    });
    const untouched = { text: 'nothing here', list: [1, 2] };
    expect(unmaskJson(untouched, placeholders)).to.equal(untouched);
  });
});
