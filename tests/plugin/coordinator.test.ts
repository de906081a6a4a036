/** Interception (docs/protocol.md §1–2): validation before anything reaches a user, one question per turn. */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createAskUserKit, memoryAuditLogger, openStore, type AskUserKit, type PendingStore } from '../../plugin/index.js';
import { parseAskUserArguments } from '../../plugin/core/coordinator.js';
import { recordingHost, SINGLE, type RecordingHost } from './harness.js';
import { recordingSink } from '../helpers/recording-sink.js';
import { allowAnyCaller } from '../../plugin/core/authorization.js';
import { requestSlotTag, sessionSlotTag } from '../../plugin/store/session-slot.js';

const call = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function' as const,
  function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
});

describe('kit.intercept', () => {
  let store: PendingStore;
  let kit: AskUserKit;
  let host: RecordingHost;
  let audit: ReturnType<typeof memoryAuditLogger>;
  let clock: number;
  beforeEach(async () => {
    clock = Date.parse('2030-05-05T10:00:00Z');
    store = await openStore('memory', { now: () => clock });
    host = recordingHost(() => store);
    audit = memoryAuditLogger();
    kit = createAskUserKit({ authorize: allowAnyCaller, store, host, logger: audit, now: () => clock, ttlMs: 60_000, expiryTimers: false });
  });
  afterEach(async () => {
    await kit.close();
    await store.close();
  });

  it('separates ask_user from ordinary calls, stores the question, writes user_input_required, pauses', async () => {
    const sse = recordingSink();
    const calls = [call('c1', 'read_file', { path: 'a' }), call('c2', 'ask_user', SINGLE), call('c3', 'grep', {})];
    const r = await kit.intercept(calls, { sessionId: 's1', sse });
    assert.equal(r.pause, true);
    assert.deepEqual(
      r.ordinaryCalls.map((c) => c.id),
      ['c1', 'c3'],
    );
    assert.deepEqual(r.errorResults, []);
    const id = r.interaction!.requestId;
    // 128 random bits, then the session's slot tag (§14): a sharded store finds the question by its id alone.
    assert.match(id, /^ask_[A-Za-z0-9_-]{33}$/);
    assert.equal(requestSlotTag(id), sessionSlotTag('s1'));
    assert.deepEqual(sse.events, [
      {
        event: 'user_input_required',
        data: {
          id,
          toolCallId: 'c2',
          sessionId: 's1',
          title: SINGLE.title,
          mode: 'single',
          options: SINGLE.options,
          expiresAt: '2030-05-05T10:01:00.000Z',
          resumable: true,
        },
      },
    ]);
    assert.deepEqual(r.event, sse.events[0]!.data);
    const stored = await store.get(id);
    assert.equal(stored?.status, 'pending');
    assert.equal(stored?.toolCallId, 'c2');
    assert.equal(stored?.expiresAt, clock + 60_000);
    assert.deepEqual((await store.currentOf('s1'))?.requestId, id);
    assert.equal(audit.entries.at(-1)?.event, 'asked');
  });

  it('refuses a sessionId the continue route could never accept', async () => {
    await assert.rejects(kit.intercept([call('c', 'ask_user', SINGLE)], { sessionId: 'has space' }), /sessionId of 1-128 printable ASCII/);
    await assert.rejects(kit.intercept([], { sessionId: '' }), TypeError);
  });

  it('no ask_user: no pause, every call is ordinary', async () => {
    const r = await kit.intercept([call('c1', 'read_file', {})], { sessionId: 's1' });
    assert.deepEqual([r.pause, r.ordinaryCalls.length, r.errorResults.length, r.interaction], [false, 1, 0, undefined]);
  });

  it('request ids are unique and unguessable (128 random bits)', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 50; i++)
      ids.add((await kit.intercept([call(`c${i}`, 'ask_user', SINGLE)], { sessionId: `s${i}` })).interaction!.requestId);
    assert.equal(ids.size, 50);
    // 22 base64url characters of randomness (16 bytes) after ask_, then the 11-character slot tag.
    for (const id of ids) assert.equal(Buffer.from(id.slice(4, 26), 'base64url').length, 16);
  });

  const invalid: Array<[string, unknown, RegExp]> = [
    ['bad JSON arguments', '{"title": "x", mode: single}', /not valid JSON/],
    ['bad JSON arguments, not quoted back', '{"title": "my private words", mode: single', /^(?![\s\S]*private)[\s\S]*not valid JSON/],
    ['a JSON array', '[]', /JSON object/],
    ['missing title', { mode: 'text' }, /title/],
    ['blank title', { title: '   ', mode: 'text' }, /title: must not be blank/],
    ['unknown mode', { title: 'x', mode: 'slider' }, /mode/],
    ['0 options in a choice mode', { title: 'x', mode: 'single', options: [] }, /options: mode "single" needs 1\.\.50 options/],
    ['no options in toggle', { title: 'x', mode: 'toggle' }, /options/],
    [
      '51 options',
      { title: 'x', mode: 'multiple', options: Array.from({ length: 51 }, (_, i) => ({ id: `o${i}`, label: `O${i}` })) },
      /options/,
    ],
    [
      'duplicate option ids',
      {
        title: 'x',
        mode: 'single',
        options: [
          { id: 'a', label: 'A' },
          { id: 'a', label: 'B' },
        ],
      },
      /options\.1\.id: duplicate option id "a"/,
    ],
    ['an option without a label', { title: 'x', mode: 'single', options: [{ id: 'a' }] }, /options\.0\.label/],
    ['an over-long title', { title: 'x'.repeat(201), mode: 'text' }, /title/],
  ];
  for (const [name, args, message] of invalid) {
    it(`invalid arguments (${name}): error ToolResult saying what was wrong; nothing shown, nothing stored`, async () => {
      const sse = recordingSink();
      const r = await kit.intercept([call('bad', 'ask_user', args), call('c2', 'ls', {})], { sessionId: 's1', sse });
      assert.equal(r.pause, false);
      assert.deepEqual(
        r.ordinaryCalls.map((c) => c.id),
        ['c2'],
      );
      assert.equal(r.errorResults.length, 1);
      const [err] = r.errorResults;
      assert.equal(err!.toolCallId, 'bad');
      assert.equal(err!.name, 'ask_user');
      assert.equal(err!.isError, true);
      assert.match(err!.content, message);
      assert.match(err!.content, /call ask_user again/);
      assert.deepEqual(sse.events, []);
      assert.equal(await store.currentOf('s1'), undefined);
      assert.equal(audit.entries.at(-1)?.reason, 'invalid_arguments');
    });
  }

  it('two ask_user in one turn: the first is asked, the second gets "ask one question at a time"', async () => {
    const sse = recordingSink();
    const r = await kit.intercept([call('q1', 'ask_user', SINGLE), call('q2', 'ask_user', { title: 'Also?', mode: 'text' })], {
      sessionId: 's1',
      sse,
    });
    assert.equal(r.pause, true);
    assert.equal(r.interaction!.toolCallId, 'q1');
    assert.equal(r.errorResults.length, 1);
    assert.equal(r.errorResults[0]!.toolCallId, 'q2');
    assert.match(r.errorResults[0]!.content, /ask one question at a time/);
    assert.equal(sse.events.length, 1);
    assert.equal(audit.entries.filter((e) => e.event === 'asked').length, 1);
  });

  it('an invalid first ask_user does not block a valid second one in the same turn', async () => {
    const r = await kit.intercept([call('q1', 'ask_user', { mode: 'text' }), call('q2', 'ask_user', SINGLE)], { sessionId: 's1' });
    assert.equal(r.interaction?.toolCallId, 'q2');
    assert.deepEqual(
      r.errorResults.map((e) => e.toolCallId),
      ['q1'],
    );
  });

  it('options given with a non-choice mode are dropped from the stored and shown form', async () => {
    const sse = recordingSink();
    const r = await kit.intercept(
      [call('q', 'ask_user', { title: 'How many?', mode: 'number', options: [{ id: 'a', label: 'A' }], allowCustom: true })],
      { sessionId: 's1', sse },
    );
    assert.equal(r.interaction!.form.options, undefined);
    assert.equal('options' in (sse.events[0]!.data as object), false);
    assert.equal((await store.get(r.interaction!.requestId))!.form.options, undefined);
  });

  it('unknown argument keys are not stored or shown', async () => {
    const r = await kit.intercept([call('q', 'ask_user', { title: 'T', mode: 'text', secret: 'x' })], { sessionId: 's1' });
    assert.equal('secret' in r.interaction!.form, false);
  });

  it('accepts arguments already parsed into an object', () => {
    const parsed = parseAskUserArguments({ title: 'T', mode: 'date' });
    assert.deepEqual(parsed, { ok: true, form: { title: 'T', mode: 'date' } });
  });

  it('a new question in a session with a pending one supersedes it first', async () => {
    const first = await kit.intercept([call('q1', 'ask_user', SINGLE)], { sessionId: 's1' });
    const second = await kit.intercept([call('q2', 'ask_user', SINGLE)], { sessionId: 's1' });
    assert.equal((await store.get(first.interaction!.requestId))?.status, 'superseded');
    assert.equal((await store.currentOf('s1'))?.requestId, second.interaction!.requestId);
    assert.equal(host.closedCalls.length, 1);
    assert.equal(host.closedCalls[0]!.record.toolCallId, 'q1');
    assert.deepEqual(
      audit.entries.map((e) => e.event),
      ['asked', 'superseded', 'asked'],
    );
  });

  it('supersede(sessionId) closes the open question as superseded; expireDue leaves a live one alone', async () => {
    const r = await kit.intercept([call('q1', 'ask_user', SINGLE)], { sessionId: 's1' });
    assert.equal(await kit.expireDue('s1'), undefined);
    const closed = await kit.supersede('s1');
    assert.equal(closed?.status, 'superseded');
    assert.equal(closed?.resolution?.answer.cancelled, true);
    assert.equal(host.closedCalls[0]!.toolResultContent, '{"selections":[],"customInput":"","cancelled":true,"reason":"superseded"}');
    assert.equal(await kit.supersede('s1'), undefined, 'nothing left to close');
    assert.equal((await store.get(r.interaction!.requestId))?.status, 'superseded');
  });

  it('expireDue(sessionId) closes a question past expiry as expired; supersede past expiry says expired too', async () => {
    await kit.intercept([call('q1', 'ask_user', SINGLE)], { sessionId: 's1' });
    clock += 60_000;
    const closed = await kit.expireDue('s1');
    assert.equal(closed?.resolution?.status, 'expired');
    assert.equal(host.closedCalls[0]!.toolResultContent, '{"selections":[],"customInput":"","cancelled":true,"reason":"expired"}');
    await kit.intercept([call('q2', 'ask_user', SINGLE)], { sessionId: 's2' });
    clock += 60_000;
    assert.equal((await kit.supersede('s2'))?.resolution?.status, 'expired');
    assert.deepEqual(
      audit.entries.map((e) => e.event),
      ['asked', 'expired', 'asked', 'expired'],
    );
  });

  it('closing twice closes once (the store claim decides)', async () => {
    const r = await kit.intercept([call('q1', 'ask_user', SINGLE)], { sessionId: 's1' });
    const results = await Promise.all([
      kit.closeInteraction(r.interaction!.requestId, 'superseded'),
      kit.closeInteraction(r.interaction!.requestId, 'superseded'),
    ]);
    assert.equal(results.filter(Boolean).length, 1);
    assert.equal(host.closedCalls.length, 1);
  });
});

describe('expiry timers', () => {
  it('close a question as expired at expiresAt without anyone asking', async () => {
    const store = await openStore('memory');
    const host = recordingHost(() => store);
    const kit = createAskUserKit({ authorize: allowAnyCaller, store, host, logger: memoryAuditLogger(), ttlMs: 30 });
    try {
      const r = await kit.intercept([call('q1', 'ask_user', SINGLE)], { sessionId: 's1' });
      while (host.closedCalls.length === 0) await new Promise((res) => setTimeout(res, 10));
      assert.equal((await store.get(r.interaction!.requestId))?.resolution?.status, 'expired');
    } finally {
      await kit.close();
      await store.close();
    }
  });
});
