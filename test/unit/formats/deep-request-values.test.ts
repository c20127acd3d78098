import { expect } from 'chai';
import { FORMAT_NAMES, type FormatName } from '../../../src/formats/canonical/format-name.js';
import { formatCodecs } from '../../../src/formats/format-codecs.js';
import type { JsonObject, JsonValue } from '../../../src/formats/json-value.js';
import { passThroughRequest } from '../../../src/formats/pass-through.js';
import { translateRequest } from '../../../src/formats/translate.js';
import { clientRequest } from '../../support/format-fixtures/client-requests.js';
import { DEEP, deeplyNested } from '../../support/deep-json.js';

/** The tool-call conversation with a deep JSON schema on its first tool and a deep unknown top-level field. */
function deepRequest(format: FormatName, deep: JsonValue): JsonObject {
  const body = structuredClone(clientRequest(format, 'tool calls and results'));
  const schema = { type: 'object', properties: { nested: deep } };
  const [tool] = body.tools as JsonObject[];
  if (format === 'chat') (tool!.function as JsonObject).parameters = schema;
  else if (format === 'messages') tool!.input_schema = schema;
  else tool!.parameters = schema;
  return { ...body, vendor_extension: deep };
}

function firstToolSchema(format: FormatName, body: JsonObject): JsonValue | undefined {
  const [tool] = body.tools as JsonObject[];
  if (format === 'chat') return (tool?.function as JsonObject | undefined)?.parameters;
  return format === 'messages' ? tool?.input_schema : tool?.parameters;
}

// Parsing, validation, translation and pass-through hand free-form values (schemas, unknown fields) on by
// reference: none of them walks into them, so their depth does not matter. (Serialising them does: see
// jsonNestingDepthExceeds.)
describe(`formats: request values nested ${DEEP.toLocaleString('en')} levels deep`, () => {
  const deep = deeplyNested(DEEP);
  for (const client of FORMAT_NAMES) {
    it(`${client}: parses, translates to every format and passes through without walking the deep values`, () => {
      const body = deepRequest(client, deep);
      const request = formatCodecs[client].parseRequest(body);
      expect(request.tools[0]?.parameters).to.deep.include({ properties: { nested: deep } });
      for (const provider of FORMAT_NAMES) {
        const rendered = translateRequest(request, provider, { model: 'upstream-model' });
        expect(firstToolSchema(provider, rendered.body), provider).to.deep.include({ properties: { nested: deep } });
      }
      expect(passThroughRequest(client, body, { model: 'upstream-model' }).body.vendor_extension).to.equal(deep);
    });
  }
});
