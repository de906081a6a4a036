/**
 * The routes' JSON body on Express, within the contract's 64 KiB (docs/protocol.md §4), read by Express's
 * own `express.json()` so the refusals match the Koa reader: 400, 413, 415 `invalid_request`, the body
 * never quoted back.
 */
import express, { type Request, type Response } from 'express';
import { LIMITS } from '../contract/limits.js';
import { bodyErrors, notJsonType } from './request-shape.js';

const JSON_TYPES = ['application/json', 'application/*+json'];
const parseJson = express.json({ limit: LIMITS.bodyBytes, type: JSON_TYPES, strict: true });

export async function readExpressJson(req: Request, res: Response): Promise<unknown> {
  // A host-wide `express.json()` that ran first already holds the body; the contract's limit still holds.
  if ((req as { _body?: boolean })._body) {
    if (Buffer.byteLength(JSON.stringify(req.body ?? null)) > LIMITS.bodyBytes) {
      throw bodyErrors.tooLarge();
    }
    return req.body;
  }
  if (notJsonType(req.headers['content-type'])) {
    throw bodyErrors.notJson();
  }
  const length = req.headers['content-length'];
  const empty = length === '0' || (length === undefined && !req.headers['transfer-encoding']);
  if (empty) throw bodyErrors.noBody();
  if (!req.is(JSON_TYPES)) {
    // The client's header is not quoted back: error messages reach logs and the audit trail.
    throw bodyErrors.notJson();
  }
  await new Promise<void>((resolve, reject) =>
    parseJson(req, res, (err?: unknown) => {
      if (!err) return resolve();
      const status = (err as { status?: number }).status;
      if (status === 413) reject(bodyErrors.tooLarge());
      else if (status === 415) reject(bodyErrors.badEncoding());
      else reject(bodyErrors.notValidJson());
    }),
  );
  return req.body;
}
