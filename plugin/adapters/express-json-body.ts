/**
 * The routes' JSON body on Express, within the contract's 64 KiB (docs/protocol.md §4), read by Express's
 * own `express.json()` so the refusals match the Koa reader: 400, 413, 415 `invalid_request`, the body
 * never quoted back.
 */
import express, { type Request, type Response } from 'express';
import { AskUserError } from '../core/errors.js';
import { LIMITS } from '../contract/limits.js';
import { notJsonType } from './request-shape.js';

const JSON_TYPES = ['application/json', 'application/*+json'];
const parseJson = express.json({ limit: LIMITS.bodyBytes, type: JSON_TYPES, strict: true });

export async function readExpressJson(req: Request, res: Response): Promise<unknown> {
  // A host-wide `express.json()` that ran first already holds the body; the contract's limit still holds.
  if ((req as { _body?: boolean })._body) {
    if (Buffer.byteLength(JSON.stringify(req.body ?? null)) > LIMITS.bodyBytes) {
      throw new AskUserError('invalid_request', `The body is larger than ${LIMITS.bodyBytes} bytes.`, { status: 413 });
    }
    return req.body;
  }
  if (notJsonType(req.headers['content-type'])) {
    throw new AskUserError('invalid_request', 'The Content-Type is not JSON; send application/json.', { status: 415 });
  }
  const length = req.headers['content-length'];
  const empty = length === '0' || (length === undefined && !req.headers['transfer-encoding']);
  if (empty) throw new AskUserError('invalid_request', 'The request has no body; send the answer as a JSON object.');
  if (!req.is(JSON_TYPES)) {
    // The client's header is not quoted back: error messages reach logs and the audit trail.
    throw new AskUserError('invalid_request', 'The Content-Type is not JSON; send application/json.', { status: 415 });
  }
  await new Promise<void>((resolve, reject) =>
    parseJson(req, res, (err?: unknown) => {
      if (!err) return resolve();
      const status = (err as { status?: number }).status;
      if (status === 413)
        reject(new AskUserError('invalid_request', `The body is larger than ${LIMITS.bodyBytes} bytes.`, { status: 413 }));
      else if (status === 415)
        reject(new AskUserError('invalid_request', 'The body uses an unsupported charset or encoding; send UTF-8 JSON.', { status: 415 }));
      // No `cause`: the parser's error carries the raw body, which would reach any log of this error.
      else reject(new AskUserError('invalid_request', 'The body is not valid JSON.'));
    }),
  );
  return req.body;
}
