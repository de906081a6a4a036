/**
 * The request body as JSON within the contract's 64 KiB (docs/protocol.md §4), for the plugin's routes and a
 * host's own JSON routes (the demo's `POST /api/chat`): every way a body can be wrong becomes an
 * AskUserError `invalid_request` with 400, 413 or 415, and the body itself is never quoted back.
 */
import { bodyParser } from '@koa/bodyparser';
import type { ParameterizedContext } from 'koa';
import { LIMITS } from '../contract/limits.js';
import { bodyErrors, notJsonType } from './request-shape.js';

// The parser must read every type the check below lets through, or a `+json` body would arrive as `{}`.
const JSON_TYPES = ['application/json', 'application/*+json'];
const jsonBody = bodyParser({
  enableTypes: ['json'],
  extendTypes: { json: JSON_TYPES },
  jsonLimit: LIMITS.bodyBytes,
  jsonStrict: true,
  parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'],
});

/** Read the JSON body within the contract's limit, or throw the matching invalid_request. */
export async function readJsonBody(ctx: ParameterizedContext): Promise<unknown> {
  if (notJsonType(ctx.get('content-type') || undefined)) {
    throw bodyErrors.notJson();
  }
  // type-is counts `Content-Length: 0` as a body; for us an empty body is no body.
  const empty = ctx.request.length === 0 || (ctx.request.length === undefined && !ctx.get('transfer-encoding'));
  const kind = empty ? null : ctx.request.is(JSON_TYPES);
  if (kind === null) throw bodyErrors.noBody();
  if (kind === false) {
    // The client's header is not quoted back: error messages reach logs and the audit trail.
    throw bodyErrors.notJson();
  }
  try {
    await jsonBody(ctx as never, async () => {});
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (status === 413) throw bodyErrors.tooLarge();
    if (status === 415) throw bodyErrors.badEncoding();
    throw bodyErrors.notValidJson();
  }
  // A host-wide body parser may have run first with its own limit; the contract's limit still holds.
  const raw = (ctx.request as { rawBody?: unknown }).rawBody;
  if (typeof raw === 'string' && Buffer.byteLength(raw) > LIMITS.bodyBytes) {
    throw bodyErrors.tooLarge();
  }
  return ctx.request.body;
}
