/**
 * The one behaviour every PendingStore backend must show (Keyv's test-suite idea): each backend's test
 * file calls `storeContract` with a factory that opens a store on that backend. Every test gets its own
 * namespace and clock; stores opened with the same factory share the backend, which namespace
 * isolation relies on.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, it } from 'node:test';
import { StoreError } from '../../../plugin/store/store-errors.js';
import { StoreUnavailableError, type PendingStore, type StoreOptions } from '../../../plugin/store/types.js';
import { HOUR, MINUTE, T0, answered, closedAs, newRequestId, pendingRecord } from './fixtures/records.js';

export type StoreFactory = (options: StoreOptions) => Promise<PendingStore>;

const RETENTION = 24 * HOUR;

export function storeContract(backend: string, factory: StoreFactory): void {
  describe(`PendingStore contract: ${backend}`, () => {
    const opened: PendingStore[] = [];
    let clock = T0;
    const now = () => clock;

    async function open(options: StoreOptions = {}): Promise<PendingStore> {
      const store = await factory({ namespace: `t${randomBytes(5).toString('hex')}`, now, ...options });
      opened.push(store);
      return store;
    }

    afterEach(async () => {
      clock = T0;
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });

    it('creates a pending interaction that get and currentOf return', async () => {
      const store = await open();
      const record = pendingRecord();
      await store.create(record);
      assert.deepEqual(await store.get(record.requestId), record);
      assert.deepEqual(await store.currentOf(record.sessionId), record);
      assert.equal(await store.get(newRequestId()), undefined);
      assert.equal(await store.currentOf('someone-else'), undefined);
    });

    it('makes the newest interaction of a session its current one', async () => {
      const store = await open();
      const first = pendingRecord();
      const second = pendingRecord({ sessionId: first.sessionId });
      await store.create(first);
      assert.equal((await store.claim(first.requestId, closedAs('superseded'), { allowExpired: true })).ok, true);
      await store.create(second);
      assert.equal((await store.currentOf(first.sessionId))?.requestId, second.requestId);
    });

    it('treats a repeated identical create as a retry and a different one as a clash', async () => {
      const store = await open();
      const record = pendingRecord();
      await store.create(record);
      await store.create(structuredClone(record));
      await assert.rejects(
        store.create({ ...record, toolCallId: 'call_other' }),
        (e: unknown) => e instanceof StoreError && e.code === 'duplicate_request_id',
      );
      await assert.rejects(
        store.create({ ...record, sessionId: 'other-session' }),
        (e: unknown) => e instanceof StoreError && e.code === 'duplicate_request_id',
      );
      assert.equal(await store.currentOf('other-session'), undefined, 'a refused create leaves session pointers alone');
      assert.deepEqual(await store.currentOf(record.sessionId), record);
      await assert.rejects(
        store.create({ ...pendingRecord(), status: 'answered' }),
        (e: unknown) => e instanceof StoreError && e.code === 'invalid_record',
      );
    });

    it('lets exactly one claim win and stores the answer inside the record', async () => {
      const store = await open();
      const record = pendingRecord();
      await store.create(record);
      const first = await store.claim(record.requestId, answered(['pg']));
      assert.equal(first.ok, true);
      assert.equal(first.ok && first.record.status, 'answered');
      const second = await store.claim(record.requestId, answered(['sqlite']));
      assert.equal(second.ok, false);
      assert.equal(!second.ok && second.reason, 'already_resolved');
      const stored = await store.get(record.requestId);
      assert.equal(stored?.status, 'answered');
      assert.deepEqual(stored?.resolution, answered(['pg']));
      assert.equal(await store.currentOf(record.sessionId), undefined, 'an answered interaction is no longer current');
      assert.deepEqual(await store.claim(newRequestId(), answered(['pg'])), { ok: false, reason: 'not_found' });
    });

    it('gives exactly one ok to 100 concurrent identical claims', async () => {
      const store = await open();
      const record = pendingRecord();
      await store.create(record);
      const outcomes = await Promise.all(Array.from({ length: 100 }, () => store.claim(record.requestId, answered(['pg']))));
      assert.equal(outcomes.filter((o) => o.ok).length, 1);
      assert.ok(outcomes.every((o) => o.ok || o.reason === 'already_resolved'));
    });

    it('keeps the answer of the one winner among 50 concurrent different answers', async () => {
      const store = await open();
      const record = pendingRecord();
      await store.create(record);
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, (_, i) => store.claim(record.requestId, answered(['pg'], `answer ${i}`))),
      );
      const winners = outcomes.flatMap((o) => (o.ok ? [o.record] : []));
      assert.equal(winners.length, 1);
      const stored = await store.get(record.requestId);
      assert.deepEqual(stored?.resolution, winners[0]?.resolution);
      for (const o of outcomes) if (!o.ok && o.reason === 'already_resolved') assert.deepEqual(o.record.resolution, winners[0]?.resolution);
    });

    it('reads a pending interaction past expiresAt as expired, by its own clock', async () => {
      const store = await open();
      const record = pendingRecord();
      await store.create(record);
      clock = record.expiresAt - 1;
      assert.equal((await store.get(record.requestId))?.status, 'pending');
      clock = record.expiresAt;
      assert.equal((await store.get(record.requestId))?.status, 'expired');
      assert.equal((await store.currentOf(record.sessionId))?.status, 'expired');
      const late = await store.claim(record.requestId, answered(['pg'], '', clock));
      assert.equal(!late.ok && late.reason, 'expired');
      assert.equal((await store.get(record.requestId))?.resolution, undefined, 'a refused claim changes nothing');
    });

    it('closes an expired interaction once with allowExpired and keeps refusing late answers', async () => {
      const store = await open();
      const record = pendingRecord();
      await store.create(record);
      clock = record.expiresAt + MINUTE;
      const closes = await Promise.all(
        Array.from({ length: 10 }, () => store.claim(record.requestId, closedAs('expired', clock), { allowExpired: true })),
      );
      assert.equal(closes.filter((o) => o.ok).length, 1);
      assert.ok(closes.every((o) => o.ok || o.reason === 'already_resolved'));
      const late = await store.claim(record.requestId, answered(['pg'], '', clock));
      assert.equal(!late.ok && late.reason, 'expired');
      const current = await store.currentOf(record.sessionId);
      assert.equal(current?.status, 'expired', 'a closed-as-expired card is still shown as a receipt');
      assert.equal(current?.resolution?.status, 'expired');
    });

    it('supersedes a live pending interaction with allowExpired', async () => {
      const store = await open();
      const record = pendingRecord();
      await store.create(record);
      const outcome = await store.claim(record.requestId, closedAs('superseded'), { allowExpired: true });
      assert.equal(outcome.ok, true);
      assert.equal(await store.currentOf(record.sessionId), undefined);
      const late = await store.claim(record.requestId, answered(['pg']));
      assert.equal(!late.ok && late.reason, 'already_resolved');
    });

    it('keeps a resolved interaction as a tombstone for retentionMs, then forgets it', async () => {
      const store = await open({ retentionMs: RETENTION });
      const record = pendingRecord();
      await store.create(record);
      const at = T0 + MINUTE;
      clock = at;
      assert.equal((await store.claim(record.requestId, answered(['pg'], '', at))).ok, true);
      clock = at + RETENTION - 1;
      const duplicate = await store.claim(record.requestId, answered(['pg'], '', clock));
      assert.equal(!duplicate.ok && duplicate.reason, 'already_resolved');
      assert.equal((await store.get(record.requestId))?.status, 'answered', 'answered stays answered after expiresAt');
      clock = at + RETENTION;
      assert.equal(await store.get(record.requestId), undefined);
      assert.deepEqual(await store.claim(record.requestId, answered(['pg'], '', clock)), { ok: false, reason: 'not_found' });
    });

    it('keeps an expired, never closed interaction for retentionMs after expiresAt', async () => {
      const store = await open({ retentionMs: RETENTION });
      const record = pendingRecord();
      await store.create(record);
      clock = record.expiresAt + RETENTION - 1;
      assert.equal((await store.currentOf(record.sessionId))?.status, 'expired');
      clock = record.expiresAt + RETENTION;
      assert.equal(await store.get(record.requestId), undefined);
      assert.equal(await store.currentOf(record.sessionId), undefined);
      assert.deepEqual(await store.claim(record.requestId, closedAs('expired', clock), { allowExpired: true }), {
        ok: false,
        reason: 'not_found',
      });
    });

    it('marks the ToolResult written, idempotently, and only on a resolved interaction', async () => {
      const store = await open();
      const record = pendingRecord();
      await store.create(record);
      await assert.rejects(
        store.markToolResultWritten(record.requestId),
        (e: unknown) => e instanceof StoreError && e.code === 'not_resolved',
      );
      await store.claim(record.requestId, answered(['sqlite']));
      assert.equal((await store.get(record.requestId))?.toolResultWritten, undefined, 'a fresh claim still needs rolling forward');
      await Promise.all([store.markToolResultWritten(record.requestId), store.markToolResultWritten(record.requestId)]);
      await store.markToolResultWritten(record.requestId);
      const stored = await store.get(record.requestId);
      assert.equal(stored?.toolResultWritten, true);
      assert.deepEqual(stored?.resolution, answered(['sqlite']), 'marking keeps the answer');
      await store.markToolResultWritten(newRequestId());
    });

    it('keeps a claimed answer across reopening the store, so it can be rolled forward', async () => {
      const namespace = `reopen${randomBytes(4).toString('hex')}`;
      const first = await open({ namespace });
      const record = pendingRecord();
      await first.create(record);
      await first.claim(record.requestId, answered(['pg'], 'use the replica'));
      await first.close();
      // As if the process died between the claim and the ToolResult write.
      const second = await open({ namespace });
      const stored = await second.get(record.requestId);
      assert.equal(stored?.status, 'answered');
      assert.deepEqual(stored?.resolution, answered(['pg'], 'use the replica'));
      assert.equal(stored?.toolResultWritten, undefined);
      await second.markToolResultWritten(record.requestId);
      assert.equal((await second.get(record.requestId))?.toolResultWritten, true);
    });

    it('writes state only if absent when ifVersion is null', async () => {
      const store = await open();
      assert.equal(await store.getState('run'), undefined);
      assert.equal(await store.putState('run', { step: 1 }, { ifVersion: null }), true);
      assert.equal(await store.putState('run', { step: 2 }, { ifVersion: null }), false);
      assert.deepEqual((await store.getState('run'))?.value, { step: 1 });
    });

    it('writes state only over the version it read', async () => {
      const store = await open();
      await store.putState('run', { step: 1 });
      const read = await store.getState<{ step: number }>('run');
      assert.ok(read);
      assert.equal(await store.putState('run', { step: 2 }, { ifVersion: read.version }), true);
      const after = await store.getState<{ step: number }>('run');
      assert.notEqual(after?.version, read.version, 'every write changes the version');
      assert.equal(await store.putState('run', { step: 3 }, { ifVersion: read.version }), false, 'a stale version loses');
      assert.equal(await store.putState('missing', 1, { ifVersion: read.version }), false, 'no entry matches a version');
      assert.equal(await store.putState('run', { step: 4 }), true, 'no ifVersion writes unconditionally');
      assert.deepEqual((await store.getState('run'))?.value, { step: 4 });
    });

    it('lets one of 20 concurrent writers with the same version win', async () => {
      const store = await open();
      await store.putState('fence', 0);
      const read = await store.getState<number>('fence');
      assert.ok(read);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.putState('fence', i + 1, { ifVersion: read.version })));
      assert.equal(results.filter(Boolean).length, 1);
      assert.equal((await store.getState('fence'))?.value, results.indexOf(true) + 1);
    });

    it('deletes state with and without a version, and expires it by ttlMs on its clock', async () => {
      const store = await open();
      await store.putState('a', 'x');
      const read = await store.getState<string>('a');
      assert.equal(await store.deleteState('a', 'not-the-version'), false);
      assert.equal(await store.deleteState('a', read?.version), true);
      assert.equal(await store.getState('a'), undefined);
      assert.equal(await store.deleteState('a'), false);
      await store.putState('b', 'y');
      assert.equal(await store.deleteState('b'), true);

      assert.equal(await store.putState('lease', 'mine', { ifVersion: null, ttlMs: MINUTE }), true);
      clock += MINUTE - 1;
      assert.equal((await store.getState('lease'))?.value, 'mine');
      clock += 1;
      assert.equal(await store.getState('lease'), undefined);
      assert.equal(await store.putState('lease', 'theirs', { ifVersion: null }), true, 'an expired entry counts as absent');
    });

    it('isolates namespaces on one backend', async () => {
      const a = await open({ namespace: `a${randomBytes(4).toString('hex')}` });
      const b = await open({ namespace: `b${randomBytes(4).toString('hex')}` });
      const record = pendingRecord();
      await a.create(record);
      await a.putState('run', 'a');
      assert.equal(await b.get(record.requestId), undefined);
      assert.equal(await b.currentOf(record.sessionId), undefined);
      assert.deepEqual(await b.claim(record.requestId, answered(['pg'])), { ok: false, reason: 'not_found' });
      assert.equal(await b.getState('run'), undefined);
      assert.equal(await b.putState('run', 'b', { ifVersion: null }), true);
      assert.equal((await a.getState('run'))?.value, 'a');
      assert.equal((await a.get(record.requestId))?.status, 'pending');
    });

    it('rejects every operation after close with StoreUnavailableError', async () => {
      const store = await open();
      await store.close();
      await assert.rejects(store.get(newRequestId()), StoreUnavailableError);
      await assert.rejects(store.putState('x', 1), StoreUnavailableError);
      await store.close();
    });
  });
}
