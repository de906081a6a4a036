/**
 * A duplicate submission that read the record while it was still pending, and reaches the host's
 * resumability check only after the first submission was claimed and resumed. The contract's answer is
 * 409 `already_answered` with the first answer's receipt (docs/protocol.md §4: "each request is consumed
 * exactly once … already answered → 409 already_answered + receipt"); `not_resumable` would tell a user
 * who double-clicked that the server restarted. The read is held back by a store proxy, so the
 * interleaving that four processes hit by chance (races-processes.test.ts) happens every time here.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStore, type PendingStore } from '../../plugin/index.js';
import { answer, startApp } from '../plugin/harness.js';
import { startHarness } from '../demo/harness.js';
import { answerBody, postStream } from '../demo/sse-client.js';
import { startAskingModel } from './helpers/asking-model.js';

interface HeldRead {
  store: PendingStore;
  /** The next `get` reads, then waits for `release()` before it returns what it read. */
  holdNextGet(): { read: Promise<void>; release(): void };
}

function staleReads(inner: PendingStore): HeldRead {
  let hold: { read: () => void; released: Promise<void> } | undefined;
  const store = new Proxy(inner, {
    get(target, p, receiver) {
      const value = Reflect.get(target, p, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (p !== 'get') return (value as (...a: unknown[]) => unknown).bind(target);
      return async (requestId: string) => {
        const mine = hold;
        hold = undefined;
        const record = await inner.get(requestId);
        if (mine) {
          mine.read();
          await mine.released;
        }
        return record;
      };
    },
  });
  return {
    store,
    holdNextGet() {
      let read!: () => void;
      let release!: () => void;
      const readP = new Promise<void>((r) => (read = r));
      const released = new Promise<void>((r) => (release = r));
      hold = { read, released };
      return { read: readP, release };
    },
  };
}

describe('a duplicate whose read went stale', () => {
  it('persistent loop: gets 409 already_answered with the receipt, not not_resumable', async () => {
    const model = await startAskingModel();
    const held = staleReads(await openStore('memory'));
    const h = await startHarness({ model, store: held.store });
    try {
      const chat = await postStream(`${h.url}/api/chat`, { sessionId: 'stale', message: 'ask ask-stale' });
      const id = chat.events.find((e) => e.event === 'user_input_required')!.data.id as string;
      const gate = held.holdNextGet();
      const late = postStream(`${h.url}/api/chat/continue`, answerBody('stale', id, ['safe']));
      await gate.read;
      const first = await postStream(`${h.url}/api/chat/continue`, answerBody('stale', id, ['implement']));
      assert.equal(first.status, 200);
      gate.release();
      const dup = await late;
      assert.equal(dup.status, 409);
      assert.equal(dup.json?.error?.code, 'already_answered', `got ${JSON.stringify(dup.json)}`);
      assert.equal(dup.json?.error?.receipt?.status, 'answered');
    } finally {
      await h.close();
      await held.store.close();
      await model.close();
    }
  });

  it('in-process host: gets 409 already_answered with the receipt, not not_resumable', async () => {
    let held: HeldRead | undefined;
    const t = await startApp({ inProcess: true, wrapStore: (s) => (held = staleReads(s)).store });
    try {
      const rec = await t.ask('stale');
      const waiting = t.kit.waitForAnswer(rec.requestId);
      const gate = held!.holdNextGet();
      const late = t.post(answer('stale', rec.requestId));
      await gate.read;
      const first = t.post(answer('stale', rec.requestId, { selections: ['implement'] }));
      const woke = await waiting;
      woke.sse?.send('done', { reason: 'completed' });
      assert.equal((await first).status, 200);
      gate.release();
      const dup = await late;
      const body = (await dup.json()) as { error: { code: string; receipt?: { status: string } } };
      assert.equal(dup.status, 409);
      assert.equal(body.error.code, 'already_answered', `got ${JSON.stringify(body)}`);
      assert.equal(body.error.receipt?.status, 'answered');
    } finally {
      await t.close();
    }
  });
});
