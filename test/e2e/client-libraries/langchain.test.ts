import { describeLibrary } from './library-cases.js';
import { LANGCHAIN_LIBRARIES } from './langchain-clients.js';

// LangChain's chat models pointed at the gateway (docs/client-libraries.md); the cases are in library-cases.ts.
describe('client libraries: LangChain', function () {
  this.timeout(20_000);
  for (const library of LANGCHAIN_LIBRARIES) describeLibrary(library);
});
