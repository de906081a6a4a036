/**
 * In-process mode: the continue response waits on the run's stream. If the continued run throws (here:
 * its run-state store fails after the answer), the stream must end with the failure, not stay open.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import OpenAI from 'openai';
import { createAskUserKit } from '../../plugin/ask-user-kit.js';
import { allowAnyCaller } from '../../plugin/authorization.js';
import { memoryAuditLogger } from '../../plugin/audit.js';
import { openStore } from '../../plugin/store/index.js';
import type { PendingStore } from '../../plugin/store/types.js';
import { createAgentLoop } from '../../plugin/loop/index.js';
import { startScriptedModel } from '../helpers/scripted-model.js';
import { recordingSink } from './recording-sink.js';
import { answerBody, postStream, shape } from './sse-client.js';
import { askSingle } from './harness.js';
import { koaRoutes } from '../../plugin/adapters/koa.js';

test('in-process host: a continued run that throws ends the continue stream with an error', async (t) => {
  const model = await startScriptedModel({ turns: [{ toolCalls: [askSingle('call_fail')] }, { text: 'never streamed' }] });
  const store = await openStore('memory');
  const inner = await openStore('memory');
  // Armed after the pause: the answer's ToolResult write lands, then every later read of the run fails.
  let armed = false;
  let wrote = false;
  const stateStore = new Proxy(inner, {
    get(target, p, receiver) {
      const value = Reflect.get(target, p, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const key = String(args[0]);
        if (armed && wrote && p === 'getState' && key.startsWith('run:')) return Promise.reject(Object.assign(new Error('state store down'), { code: 'state_store_down' }));
        const out = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (armed && p === 'putState' && key.startsWith('run:')) wrote = true;
        return out;
      };
    },
  }) as PendingStore;
  const kit = createAskUserKit({ store, logger: memoryAuditLogger(), heartbeatMs: 0, authorize: allowAnyCaller });
  const errors: unknown[] = [];
  const loop = createAgentLoop({ client: new OpenAI({ baseURL: model.baseURL, apiKey: 't', maxRetries: 0 }), model: 'm', store, stateStore, inProcess: kit, coordinator: kit, onError: (e) => errors.push(e) });
  const app = new Koa();
  app.silent = true;
  app.use(koaRoutes(kit));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  t.after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await kit.close();
    await loop.close();
    await model.close();
    await store.close();
    await inner.close();
  });
  const sse = recordingSink();
  await loop.chat({ sessionId: 's-fail', message: 'go', sse });
  const ask = sse.events.find((e) => e.event === 'user_input_required')!.data as { id: string };
  armed = true;
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/chat/continue`;
  // Tells a hang from a slow machine: the stream ends at once unless it hangs.
  const hang = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the continue stream never ended')), 30_000).unref());
  const cont = await Promise.race([postStream(url, answerBody('s-fail', ask.id, ['safe'])), hang]);
  assert.deepEqual(shape(cont).slice(0, 2), ['interaction_resolved', 'tool_result']);
  assert.deepEqual(shape(cont).slice(-2), ['error', 'done'], 'the stream ends with the failure');
  assert.ok(errors.length >= 1, 'the cause went to onError');
});
