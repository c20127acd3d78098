import { expect } from 'chai';
import type { JsonRecord } from '../../../src/pii/formats/json-texts.js';
import { maskRequest as maskJson } from '../../../src/pii/mask-request.js';

/** The bodies below are plain JSON written as object literals. */
const maskRequest = (format: Parameters<typeof maskJson>[0], body: object) => maskJson(format, body as JsonRecord);

const EMAIL = 'jane.doe@example.com';
const PHONE = '+44 20 7946 0958';
const IMAGE = 'data:image/png;base64,amFuZS5kb2VAZXhhbXBsZS5jb20=';

describe('pii: masking a request body', () => {
  it('chat: message contents (strings and text parts) of every role, tool results and tool-call arguments; nothing else', async () => {
    const body = {
      model: 'openai/gpt-4o-mini',
      messages: [
        { role: 'system', content: `Assistant of ${EMAIL}` },
        { role: 'developer', content: [{ type: 'text', text: `Phone ${PHONE}` }] },
        { role: 'user', name: 'jane', content: [{ type: 'text', text: `I am ${EMAIL}` }, { type: 'image_url', image_url: { url: IMAGE } }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: JSON.stringify({ email: EMAIL, note: `call\n${PHONE}` }) } }] },
        { role: 'tool', tool_call_id: 'call_1', content: `found ${EMAIL}` },
      ],
      tools: [{ type: 'function', function: { name: 'lookup', description: `example ${EMAIL}`, parameters: { type: 'object' } } }],
      user: EMAIL,
    };
    const { body: masked, placeholders } = await maskRequest('chat', body);
    expect(masked).to.deep.equal({
      ...body,
      messages: [
        { role: 'system', content: 'Assistant of [EMAIL_1]' },
        { role: 'developer', content: [{ type: 'text', text: 'Phone [PHONE_1]' }] },
        { role: 'user', name: 'jane', content: [{ type: 'text', text: 'I am [EMAIL_1]' }, { type: 'image_url', image_url: { url: IMAGE } }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: JSON.stringify({ email: '[EMAIL_1]', note: 'call\n[PHONE_1]' }) } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'found [EMAIL_1]' },
      ],
    });
    expect(placeholders.valueOf('[EMAIL_1]')).to.equal(EMAIL);
    expect(body.messages[0]!.content, 'the body read is not changed').to.equal(`Assistant of ${EMAIL}`);
  });

  it('messages: system (string or blocks), text blocks, tool_use inputs and tool_result contents; images and thinking as they were', async () => {
    const thinking = { type: 'thinking', thinking: `about ${EMAIL}`, signature: 'c2ln' };
    const body = {
      model: 'anthropic/claude-sonnet-4-5',
      max_tokens: 100,
      system: [{ type: 'text', text: `Serve ${EMAIL}` }],
      messages: [
        { role: 'user', content: `Hi, ${PHONE} here` },
        { role: 'assistant', content: [thinking, { type: 'tool_use', id: 'toolu_1', name: 'dial', input: { number: PHONE, tags: [EMAIL] } }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: `dialled ${PHONE}` }] },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'amFuZQ==' } },
            { type: 'text', text: `and ${EMAIL}` },
          ],
        },
      ],
    };
    const { body: masked } = await maskRequest('messages', body);
    expect(masked).to.deep.equal({
      ...body,
      system: [{ type: 'text', text: 'Serve [EMAIL_1]' }],
      messages: [
        { role: 'user', content: 'Hi, [PHONE_1] here' },
        { role: 'assistant', content: [thinking, { type: 'tool_use', id: 'toolu_1', name: 'dial', input: { number: '[PHONE_1]', tags: ['[EMAIL_1]'] } }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'dialled [PHONE_1]' }] },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'amFuZQ==' } },
            { type: 'text', text: 'and [EMAIL_1]' },
          ],
        },
      ],
    });
  });

  it('responses: instructions, input as a string or items (message parts, function calls and their outputs)', async () => {
    const plain = await maskRequest('responses', { model: 'openai/gpt-4o-mini', instructions: `For ${EMAIL}`, input: `Call ${PHONE}` });
    expect(plain.body).to.deep.include({ instructions: 'For [EMAIL_1]', input: 'Call [PHONE_1]' });
    const items = {
      model: 'openai/gpt-4o-mini',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: EMAIL }, { type: 'input_image', image_url: IMAGE }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `noted ${PHONE}` }] },
        { type: 'function_call', call_id: 'call_1', name: 'mail', arguments: JSON.stringify({ to: EMAIL }) },
        { type: 'function_call_output', call_id: 'call_1', output: `sent to ${EMAIL}` },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: EMAIL }] },
      ],
    };
    const { body: masked } = await maskRequest('responses', items);
    expect(masked.input).to.deep.equal([
      { role: 'user', content: [{ type: 'input_text', text: '[EMAIL_1]' }, { type: 'input_image', image_url: IMAGE }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'noted [PHONE_1]' }] },
      { type: 'function_call', call_id: 'call_1', name: 'mail', arguments: JSON.stringify({ to: '[EMAIL_1]' }) },
      { type: 'function_call_output', call_id: 'call_1', output: 'sent to [EMAIL_1]' },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: EMAIL }] },
    ]);
  });

  it('masks arguments that are not JSON as text', async () => {
    const { body } = await maskRequest('responses', { input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: `to=${EMAIL}` }] });
    expect(body.input).to.deep.equal([{ type: 'function_call', call_id: 'c', name: 'f', arguments: 'to=[EMAIL_1]' }]);
  });
});
