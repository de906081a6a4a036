/**
 * The routes' JSON body from a Fetch `Request`, within the contract's 64 KiB (docs/protocol.md §4): the
 * same refusals as the Koa and Express readers (400, 413, 415 `invalid_request`), and the body is never
 * quoted back. Web requests have no body-size limit of their own, so the stream is read with a cap.
 */
import { AskUserError } from '../errors.js';
import { LIMITS } from '../contract/limits.js';
import { isJsonMediaType, notJsonType } from './request-shape.js';

/** `application/json` or any `application/…+json`, in UTF-8 (the default for JSON). */
function isUtf8Json(contentType: string | null): boolean {
  if (!contentType || !isJsonMediaType(contentType)) return false;
  const params = contentType.toLowerCase().split(';').slice(1).map((p) => p.trim());
  const charset = params.find((p) => p.startsWith('charset='))?.slice('charset='.length).replace(/"/g, '');
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

const tooLarge = () => new AskUserError('invalid_request', `The body is larger than ${LIMITS.bodyBytes} bytes.`, { status: 413 });

export async function readRequestJson(request: Request): Promise<unknown> {
  const length = request.headers.get('content-length');
  if (notJsonType(request.headers.get('content-type') ?? undefined)) {
    throw new AskUserError('invalid_request', 'The Content-Type is not JSON; send application/json.', { status: 415 });
  }
  if (!request.body || length === '0') throw new AskUserError('invalid_request', 'The request has no body; send the answer as a JSON object.');
  if (!isUtf8Json(request.headers.get('content-type'))) {
    throw new AskUserError('invalid_request', 'The Content-Type is not UTF-8 JSON; send application/json.', { status: 415 });
  }
  if (length !== null && Number(length) > LIMITS.bodyBytes) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > LIMITS.bodyBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  if (size === 0) throw new AskUserError('invalid_request', 'The request has no body; send the answer as a JSON object.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)));
  } catch {
    // No `cause`: the parser's message quotes the body.
    throw new AskUserError('invalid_request', 'The body is not valid JSON.');
  }
  // As the Koa reader (strict JSON): a body is an object or an array, never a bare value.
  if (parsed === null || typeof parsed !== 'object') throw new AskUserError('invalid_request', 'The body is not valid JSON.');
  return parsed;
}
