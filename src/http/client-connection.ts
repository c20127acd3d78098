import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BodyKind, RequestBodies } from '../endpoints/endpoint-spec.js';
import type { ClientConnection } from '../pipeline/client-connection.js';
import { sendJson, sendText } from './json-reply.js';
import { discardUpload, readMultipart } from './multipart-body.js';
import { parseJsonObject, readBody, refuseDeclaredOversize } from './request-body.js';
import { streamReply } from './stream-reply.js';

function isMultipart(contentType: string | undefined): boolean {
  return contentType !== undefined && /^\s*multipart\//i.test(contentType);
}

/** The pipeline's view of one request (src/pipeline/client-connection.ts), over node's request and response. */
export function clientConnection(req: IncomingMessage, res: ServerResponse): ClientConnection {
  let spooled: RequestBodies['multipart'] | undefined;
  return {
    headers: req.headers,
    refuseDeclaredOversize: (limit) => refuseDeclaredOversize(req, limit),
    readBody: async <Kind extends BodyKind>(kind: Kind, limit: number) => {
      if (kind === 'multipart') return (spooled = await readMultipart(req, limit)) as RequestBodies[Kind];
      if (kind === 'json') return parseJsonObject(await readBody(req, limit)) as RequestBodies[Kind];
      // a form is JSON or multipart as the client says; a multipart form keeps no file
      const form: RequestBodies['form'] = isMultipart(req.headers['content-type'])
        ? { kind: 'multipart', upload: await readMultipart(req, limit, { fileField: null }) }
        : { kind: 'json', json: parseJsonObject(await readBody(req, limit)) };
      return form as RequestBodies[Kind]; // `kind` is 'form' here
    },
    // what this connection spooled, whatever the body handed back looks like
    releaseBody: async () => {
      if (spooled) await discardUpload(spooled);
    },
    setHeader: (name, value) => void res.setHeader(name, value),
    sendJson: (status, body) => sendJson(res, status, body),
    sendText: (status, contentType, text) => sendText(res, status, contentType, text),
    sendProviderAnswer: (status, headers, body) => {
      res.statusCode = status;
      res.setHeader('Content-Type', headers.contentType ?? 'application/json');
      if (headers.retryAfter) res.setHeader('Retry-After', headers.retryAfter);
      res.end(body);
    },
    openStream: () => streamReply(res),
    onClientGone: (listener) => {
      const onClose = () => {
        if (!res.writableFinished) listener();
      };
      res.on('close', onClose);
      return () => res.off('close', onClose);
    },
  };
}
