/**
 * The routes' JSON body from a Fetch `Request`, within the contract's 64 KiB (docs/protocol.md §4): the
 * same refusals as the Koa and Express readers (400, 413, 415 `invalid_request`), and the body is never
 * quoted back. Web requests have no body-size limit of their own, so the stream is read with a cap.
 */
import { AskUserError } from '../core/errors.js';
import { LIMITS } from '../contract/limits.js';
import { bodyErrors, isJsonMediaType, notJsonType } from './request-shape.js';

/** `application/json` or any `application/…+json`, in UTF-8 (the default for JSON). */
function isUtf8Json(contentType: string | null): boolean {
  if (!contentType || !isJsonMediaType(contentType)) return false;
  const params = contentType
    .toLowerCase()
    .split(';')
    .slice(1)
    .map((p) => p.trim());
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/"/g, '');
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body, at most LIMITS.bodyBytes, or a refusal. */
async function readBounded(request: Request, declared: boolean): Promise<Uint8Array> {
  // A declared length within the limit bounds what the server's HTTP parser lets in: read it whole. On
  // Node (@hono/node-server) this reads the socket directly, without building a web stream per request.
  if (declared) {
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > LIMITS.bodyBytes) throw bodyErrors.tooLarge();
    return bytes;
  }
  if (!request.body) throw bodyErrors.noBody();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > LIMITS.bodyBytes) {
      await reader.cancel().catch(() => {});
      throw bodyErrors.tooLarge();
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

export async function readRequestJson(request: Request): Promise<unknown> {
  const length = request.headers.get('content-length');
  const contentType = request.headers.get('content-type');
  if (notJsonType(contentType ?? undefined)) {
    throw bodyErrors.notJson();
  }
  // A request with a declared non-zero length has a body; asking for `request.body` would build a web
  // stream (on @hono/node-server, a whole second Request) just to say so.
  const declared = length !== null && /^[1-9][0-9]*$/.test(length) && request.method !== 'GET' && request.method !== 'HEAD';
  if (length === '0' || (!declared && !request.body)) throw bodyErrors.noBody();
  if (!isUtf8Json(contentType)) {
    throw new AskUserError('invalid_request', 'The Content-Type is not UTF-8 JSON; send application/json.', { status: 415 });
  }
  if (length !== null && Number(length) > LIMITS.bodyBytes) throw bodyErrors.tooLarge();
  const bytes = await readBounded(request, declared);
  if (bytes.byteLength === 0) throw bodyErrors.noBody();
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(bytes));
  } catch {
    // No `cause`: the parser's message quotes the body.
    throw bodyErrors.notValidJson();
  }
  // As the Koa reader (strict JSON): a body is an object or an array, never a bare value.
  if (parsed === null || typeof parsed !== 'object') throw bodyErrors.notValidJson();
  return parsed;
}
