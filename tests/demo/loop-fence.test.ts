/**
 * One runner per session: the lease keeps a second message or a racing continue from running the
 * session twice, and whatever the interleaving, the history stays valid with each ToolResult once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../plugin/store/index.js';
import { RunLeases } from '../../plugin/runs/run-lease.js';
import { emptyRun, RunStates, unansweredToolCalls } from '../../plugin/loop/run-state.js';
import { answerBody, first, postStream } from './sse-client.js';
import { askSingle, startHarness } from './harness.js';

test('a second message while the session runs gets session_busy; the first run is untouched', async (t) => {
  let release!: () => void;
  const hold = new Promise<void>((r) => (release = r));
  const h = await startHarness({ turns: [{ text: 'slow answer', hold }] });
  t.after(() => h.close());
  const slow = postStream(`${h.url}/api/chat`, { sessionId: 's-busy', message: 'first' });
  await h.model.waitForRequests(1);
  const busy = await postStream(`${h.url}/api/chat`, { sessionId: 's-busy', message: 'second' });
  assert.equal(busy.status, 200);
  assert.deepEqual(
    busy.events.map((e) => e.event),
    ['error', 'done'],
  );
  assert.equal(busy.events[0]!.data.code, 'session_busy');
  assert.deepEqual(busy.events[1]!.data, { reason: 'error' });
  release();
  const done = await slow;
  assert.deepEqual(first(done, 'done'), { reason: 'completed' });
  const users = (await h.demo.loop.getRun('s-busy'))!.messages.filter((m) => m.role === 'user');
  assert.deepEqual(
    users.map((m) => m.content),
    ['first'],
    'the refused message never entered the history',
  );
  assert.equal(h.model.requests.length, 1);
});

test('two concurrent continues: one runs, the other is refused, the model is called once', async (t) => {
  const h = await startHarness({ turns: [{ toolCalls: [askSingle('call_dup')] }, { text: 'once' }] });
  t.after(() => h.close());
  const ask = first(await postStream(`${h.url}/api/chat`, { sessionId: 's-dup', message: 'go' }), 'user_input_required');
  const [a, b] = await Promise.all([
    postStream(`${h.url}/api/chat/continue`, answerBody('s-dup', ask.id, ['safe'])),
    postStream(`${h.url}/api/chat/continue`, answerBody('s-dup', ask.id, ['implement'])),
  ]);
  assert.deepEqual([a.status, b.status].sort(), [200, 409]);
  assert.equal(h.model.requests.length, 2);
  const tools = (await h.demo.loop.getRun('s-dup'))!.messages.filter((m) => m.role === 'tool');
  assert.equal(tools.length, 1);
});

test('a continue racing a new message: never two runners, never a doubled or missing ToolResult', async (t) => {
  // Asks on "start"; otherwise answers in text. No queue, so any interleaving gets a fitting turn.
  const h = await startHarness({
    fallback: (body) =>
      body.messages.at(-1)?.content === 'start'
        ? { toolCalls: [askSingle(`call_race_${String(body.messages.length)}_${Math.random().toString(36).slice(2)}`)] }
        : { text: `saw ${body.messages.length} messages` },
  });
  t.after(() => h.close());
  for (let i = 0; i < 12; i++) {
    const sessionId = `s-race-${i}`;
    const ask = first(await postStream(`${h.url}/api/chat`, { sessionId, message: 'start' }), 'user_input_required');
    const callId = ask.toolCallId as string;
    const before = h.model.requests.length;
    // Staggered starts, so both orders happen: the continue first, or the message first.
    const lag = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const [cont, chat] = await Promise.all([
      lag(i % 2 ? 0 : 3 * i).then(() => postStream(`${h.url}/api/chat/continue`, answerBody(sessionId, ask.id, ['safe']))),
      lag(i % 2 ? 3 * i : 0).then(() => postStream(`${h.url}/api/chat`, { sessionId, message: 'meanwhile' })),
    ]);
    const run = (await h.demo.loop.getRun(sessionId))!;
    assert.deepEqual(unansweredToolCalls(run.messages), [], `history valid (${sessionId})`);
    const results = run.messages.filter((m) => m.role === 'tool' && m.tool_call_id === callId);
    assert.equal(results.length, 1, `exactly one ToolResult (${sessionId})`);
    assert.notEqual(run.status, 'paused');
    const calls = h.model.requests.slice(before);
    assert.ok(calls.length <= 2, 'at most one model call per accepted stream');
    for (const c of calls) {
      assert.equal(
        c.messages.filter((m) => m.role === 'tool' && m.tool_call_id === callId).length,
        1,
        'the model never sees the ToolResult twice',
      );
    }
    assert.ok([cont.status, chat.status].includes(200));
  }
});

test('a lease left by a process that stopped beating is taken over once it lapses; its late write fails', async (t) => {
  const store = await openStore('memory');
  t.after(() => store.close());
  let clock = 1_000_000;
  const dead = new RunLeases(store, { ttlMs: 60_000, now: () => clock });
  const other = new RunLeases(store, { ttlMs: 60_000, now: () => clock });
  t.after(() => (dead.close(), other.close()));
  const states = new RunStates(store);
  const old = dead.mint('s-lease');
  await states.update('s-lease', () => ({ ...emptyRun('s-lease'), status: 'running', lease: old.lease }));
  assert.equal(await other.holds(old.lease), true, 'held until its `until`');
  clock += 61_000;
  await dead.beat();
  assert.equal(await other.holds(old.lease), true, "past `until`, held while its process's heartbeat names it");
  clock += 61_000;
  assert.equal(await other.holds(old.lease), false, 'the heartbeat lapsed too: free to take over');
  const taken = other.mint('s-lease');
  await states.update('s-lease', (cur) => ({ ...cur!, lease: taken.lease }));
  // The old holder's next write checks its lease in the run state and is refused.
  await assert.rejects(
    new RunStates(store).update('s-lease', (cur) => ({ ...old.check(cur), round: 9 })),
    { code: 'session_busy' },
  );
  assert.equal(old.lost, true);
  assert.equal((await states.get('s-lease'))!.lease!.owner, taken.lease.owner, 'the new holder keeps the session');
  dead.release(old);
  assert.equal(await other.holds(old.lease), false);
});

test('a process knows its own runs: a lease it let go holds nothing, even before its `until`', async (t) => {
  const store = await openStore('memory');
  t.after(() => store.close());
  const leases = new RunLeases(store, { ttlMs: 60_000 });
  t.after(() => leases.close());
  const hold = leases.mint('s-own');
  assert.equal(await leases.holds(hold.lease), true);
  leases.release(hold);
  assert.equal(await leases.holds(hold.lease), false);
});

test('a pause and a completed turn let the lease go in their own write', async (t) => {
  const h = await startHarness({ turns: [{ toolCalls: [askSingle('call_free')] }, { text: 'done' }] });
  t.after(() => h.close());
  const ask = first(await postStream(`${h.url}/api/chat`, { sessionId: 's-free', message: 'go' }), 'user_input_required');
  assert.equal((await h.demo.loop.getRun('s-free'))!.lease, undefined, 'paused: no lease');
  await postStream(`${h.url}/api/chat/continue`, answerBody('s-free', ask.id, ['safe']));
  const run = (await h.demo.loop.getRun('s-free'))!;
  assert.equal(run.status, 'idle');
  assert.equal(run.lease, undefined, 'completed: no lease');
  assert.equal(run.listed, undefined, 'and nothing left for a sweep');
});
