import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BodyKind, RequestBodies } from '../endpoints/endpoint-spec.js';
import type { ClientConnection } from '../pipeline/client-connection.js';
import { sendJson, sendText } from './json-reply.js';
import { discardUpload, readMultipart } from './multipart-body.js';
import { parseJsonObject, readBody, refuseDeclaredOversize } from './request-body.js';
import { streamReply } from './stream-reply.js';

/** The pipeline's view of one request (src/pipeline/client-connection.ts), over node's request and response. */
export function clientConnection(req: IncomingMessage, res: ServerResponse): ClientConnection {
  return {
    headers: req.headers,
    refuseDeclaredOversize: (limit) => refuseDeclaredOversize(req, limit),
    readBody: async <Kind extends BodyKind>(kind: Kind, limit: number) => {
      const body = kind === 'multipart' ? await readMultipart(req, limit) : parseJsonObject(await readBody(req, limit));
      return body as RequestBodies[Kind]; // the branch taken is the one `kind` names
    },
    releaseBody: async (kind, body) => {
      if (kind === 'multipart') await discardUpload(body as RequestBodies['multipart']);
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
