/**
 * The README's Next.js recipe, called as Next.js's App Router calls a catch-all route file
 * (`app/api/[...ask]/route.ts`): `GET` and `POST` from `routeHandlers(kit)`, each given a `Request` and
 * `{ params }`, each answering a `Response`. The owner chats, sees the card in pending, answers and gets
 * the reply; another caller gets 403; a path under the route that is not the kit's is 404 JSON.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { createAskUserKit, memoryAuditLogger } from '../../../plugin/index.js';
import { agentRuntime } from '../../../plugin/loop/index.js';
import { routeHandlers, type RouteHandler } from '../../../plugin/adapters/fetch.js';
import { startScriptedModel, type ScriptedModel } from '../../helpers/scripted-model.js';
import { askSingle } from '../../helpers/ask-calls.js';
import { parseSse } from '../conformance/support.js';

const ORIGIN = 'http://localhost:3000';
/** What Next.js passes a catch-all route handler besides the request. */
const params = (...ask: string[]) => ({ params: Promise.resolve({ ask }) });
const owner = { cookie: 'user=owner' };

describe('routeHandlers(kit): GET and POST of a catch-all route file', () => {
  let model: ScriptedModel;
  let GET: RouteHandler;
  let POST: RouteHandler;
  let close: () => Promise<void>;

  before(async () => {
    model = await startScriptedModel({ turns: [{ toolCalls: [askSingle()] }, { text: 'Done the safe way.' }] });
    const kit = createAskUserKit({
      store: 'memory',
      logger: memoryAuditLogger(),
      heartbeatMs: 0,
      authorize: (request: Request) => request.headers.get('cookie') === 'user=owner',
      runtime: agentRuntime({ client: new OpenAI({ baseURL: model.baseURL, apiKey: 't', maxRetries: 0 }), model: 'm' }),
    });
    ({ GET, POST } = routeHandlers(kit));
    close = async () => {
      await kit.close();
      await model.close();
    };
  });
  after(() => close());

  const post = (path: string, body: unknown, headers: Record<string, string> = owner) =>
    new Request(ORIGIN + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('the owner chats, finds the card in pending, answers and gets the reply', async () => {
    const chat = await POST(post('/api/chat', { sessionId: 'next-1', message: 'go' }), params('chat'));
    assert.equal(chat.status, 200);
    assert.match(chat.headers.get('content-type') ?? '', /^text\/event-stream/);
    const asked = parseSse(await chat.text()).find((f) => f.event === 'user_input_required')!.data as { id: string };

    const pending = await GET(
      new Request(`${ORIGIN}/api/interactions/pending?sessionId=next-1`, { headers: owner }),
      params('interactions', 'pending'),
    );
    assert.equal(pending.status, 200);
    assert.equal(((await pending.json()) as { pending: { id: string } }).pending.id, asked.id);

    const answer = await POST(
      post('/api/chat/continue', { sessionId: 'next-1', requestId: asked.id, selections: ['safe'], customInput: '', cancelled: false }),
      params('chat', 'continue'),
    );
    assert.equal(answer.status, 200);
    const frames = parseSse(await answer.text());
    assert.ok(frames.some((f) => f.event === 'message_delta' && (f.data as { text: string }).text.length > 0));
    assert.deepEqual(frames.at(-1), { event: 'done', data: { reason: 'completed' }, id: frames.at(-1)!.id });
    assert.match(frames.at(-1)!.id ?? '', /^[A-Za-z0-9_-]{1,64}\.[1-9][0-9]*$/);
  });

  it('another caller gets 403 on chat and pending; an unknown path under the route is 404 JSON', async () => {
    const calls = model.requests.length;
    const chat = await POST(post('/api/chat', { sessionId: 'next-1', message: 'hijack' }, { cookie: 'user=mallory' }), params('chat'));
    assert.equal(chat.status, 403);
    assert.equal(((await chat.json()) as { error: { code: string } }).error.code, 'forbidden');
    const pending = await GET(new Request(`${ORIGIN}/api/interactions/pending?sessionId=next-1`), params('interactions', 'pending'));
    assert.equal(pending.status, 403);
    assert.equal(model.requests.length, calls);
    const unknown = await GET(new Request(`${ORIGIN}/api/whatever`, { headers: owner }), params('whatever'));
    assert.equal(unknown.status, 404);
    assert.match(unknown.headers.get('content-type') ?? '', /^application\/json/);
  });
});

describe('routeHandlers(kit) behind a framework that builds request.url on another name', () => {
  it("the same-origin rule compares the browser's Origin with the Host it addressed, not request.url's name", async (t) => {
    const model = await startScriptedModel({ turns: [{ text: 'hello' }] });
    const kit = createAskUserKit({
      store: 'memory',
      logger: memoryAuditLogger(),
      heartbeatMs: 0,
      authorize: () => true,
      runtime: agentRuntime({ client: new OpenAI({ baseURL: model.baseURL, apiKey: 't', maxRetries: 0 }), model: 'm' }),
    });
    t.after(async () => {
      await kit.close();
      await model.close();
    });
    const { POST } = routeHandlers(kit);
    // next start hands route handlers http://localhost:<port>/… whatever the browser addressed.
    const as = (origin: string) =>
      new Request('http://localhost:3000/api/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json', host: '127.0.0.1:4000', origin, 'sec-fetch-site': 'same-origin' },
        body: JSON.stringify({ sessionId: 'next-host', message: 'hi' }),
      });
    const same = await POST(as('http://127.0.0.1:4000'), params('chat'));
    assert.equal(same.status, 200);
    await same.text();
    const other = await POST(as('http://localhost:3000'), params('chat'));
    assert.equal(other.status, 403, 'an Origin that is not the addressed host is another site');
  });
});
