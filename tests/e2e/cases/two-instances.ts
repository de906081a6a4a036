/**
 * Two demo instances on one store: the question streams from instance A, the answer is continued by instance B.
 * `twoInstances` registers the case for one store: two-instances-redis.ts on a Redis of its own, stores/on-store.ts
 * on the store of its test file (instance A is then that file's shared demo server).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCase } from '../helpers/acceptance-case.js';
import { option, receipt } from '../helpers/demo-page.js';
import { answerContent, assertHistoryExtends, assertToolResultSent, shapeOf } from '../helpers/model-evidence.js';
import { APPROACH, ask, echo } from '../helpers/turns.js';
import { auditOf, chatStream, continueStreams } from '../helpers/streams.js';
import { storeLabel } from '../helpers/store-variant.js';

export interface TwoInstancesOptions {
  /** The case's name (its evidence folder). */
  name: string;
  /** The store's name in the test's title, e.g. `Redis`. */
  label: string;
  /** Starts a store for the case alone, stopped after it; absent: the store of the test file (helpers/store-variant.ts). */
  store?: () => Promise<{ readonly url: string; stop(): Promise<void> }>;
}

export function twoInstances({ name, label, store }: TwoInstancesOptions): void {
  test(`two instances on ${label}: SSE from instance A, continue on instance B, the model gets the ToolResult once`, async () => {
    const own = await store?.();
    try {
      await runCase(
        name,
        { turns: [ask('call_e2e_two_instances', APPROACH), echo()], ...(own ? { store: { url: own.url } } : {}) },
        async (c) => {
          const a = c.server;
          const b = await c.startServer();
          const { chat, tap, context } = await c.openPage(a);
          // A load balancer's choice, made explicit: every continue the page sends goes to instance B.
          await context.route(
            (url) => url.origin === new URL(a.url).origin && url.pathname === '/api/chat/continue',
            async (route) => {
              // Behind a real balancer both instances answer on one public origin; here B's own origin stands in for it.
              const headers = { ...route.request().headers(), origin: new URL(b.url).origin };
              const response = await route.fetch({ url: `${b.url}/api/chat/continue`, headers });
              await route.fulfill({ response });
            },
          );
          await chat.open();
          await chat.send('帮我整理一下这个仓库');
          const card = await chat.openCard();
          const asked = (await chatStream(tap)).events.find((e) => e.event === 'user_input_required');
          assert.ok(asked, 'no user_input_required in the raw chat SSE from instance A');

          const onB = await (await fetch(`${b.url}/api/interactions/pending?sessionId=${asked.data.sessionId}`)).json();
          assert.equal(onB.pending?.id, asked.data.id, 'instance B does not see the interaction instance A created');
          assert.equal(onB.pending.resumable, true);

          await option(card, '先分析').check();
          await card.locator('[part~="submit-button"]').click();
          await receipt(card).waitFor();
          await chat.waitForAssistant('模型收到');
          await c.evidence.screenshot(chat.page, 'answered-via-b');
          const [cont] = await continueStreams(tap, 1);
          assert.equal(cont!.exchange.status, 200);
          assert.deepEqual(shapeOf(cont!.events), ['interaction_resolved', 'tool_result', 'message_delta', 'done']);

          const sent = assertToolResultSent(c.model, 1, 'call_e2e_two_instances', answerContent(['safe'], ''));
          assertHistoryExtends(c.model.requests[0]!, sent, 'cross-instance resume');
          assert.equal(c.model.requests.length, 2, 'the model was called other than for the ask and the one continue');
          // A's sweep (every 60 s; a shared A can be that old) may roll forward the answer B claimed before B wrote
          // its ToolResult: that line is marked recovered (plugin/core/audit.ts: at least once, dedupe by requestId and
          // event). It is noted; any other line on A fails the case.
          const onA = auditOf(a, asked.data.id);
          const recovered = onA.filter((x) => x.recovered === true);
          if (recovered.length) c.note('recoveredOnA', recovered);
          assert.deepEqual(
            onA.filter((x) => x.recovered !== true).map((x) => x.event),
            ['asked'],
            'instance A should only have asked',
          );
          assert.ok(
            recovered.every((x) => x.event === 'answered'),
            'instance A rolled forward something else than the answer',
          );
          assert.deepEqual(
            auditOf(b, asked.data.id).map((x) => x.event),
            ['answered'],
            'instance B should have taken the answer',
          );
          const traceB = await (await fetch(`${b.url}/api/trace?sessionId=${asked.data.sessionId}`)).json();
          const traceA = await (await fetch(`${a.url}/api/trace?sessionId=${asked.data.sessionId}`)).json();
          assert.ok(
            traceB.lines.some((l: { stream?: string }) => l.stream === 'continue'),
            'instance B did not serve the continue stream',
          );
          assert.ok(!traceA.lines.some((l: { stream?: string }) => l.stream === 'continue'), 'instance A served a continue stream');
          c.note('instances', { a: a.url, b: b.url, store: storeLabel(c.storeUrl) });
        },
      );
    } finally {
      await own?.stop();
    }
  });
}
