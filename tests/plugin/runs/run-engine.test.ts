/**
 * The resume engine driven directly, with no HTTP and no model: a fake turn runner asks or replies as
 * scripted, a fake run format (neither the loop's nor the AI SDK's) keeps its history, and one injected
 * clock drives the kit, the engine, its leases and its runs. The kit's coordinator is the real one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerToolResultText, closedToolResultText } from '../../../plugin/contract/tool-result.js';
import { createAskUserKit } from '../../../plugin/core/ask-user-kit.js';
import { memoryAuditLogger } from '../../../plugin/core/audit.js';
import type { Coordinator } from '../../../plugin/core/coordinator.js';
import { AskUserError } from '../../../plugin/core/errors.js';
import type { Answer } from '../../../plugin/contract/schema.js';
import { PausedIndex } from '../../../plugin/runs/paused-index.js';
import { RunEngine } from '../../../plugin/runs/run-engine.js';
import type { ResumableRun, RunFormat, TurnInput, TurnOutcome } from '../../../plugin/runs/run-format.js';
import { RunLeases } from '../../../plugin/runs/run-lease.js';
import { StoredRuns } from '../../../plugin/runs/stored-runs.js';
import { writeToolResult } from '../../../plugin/runs/tool-result-writer.js';
import { chatRunFormat } from '../../../plugin/loop/chat-history.js';
import { emptyRun } from '../../../plugin/loop/run-state.js';
import { aiRunFormat } from '../../../plugin/ai-sdk/result-writer.js';
import { emptyAiRun } from '../../../plugin/ai-sdk/ai-run-state.js';
import { recordingSink, type RecordingSink } from '../../helpers/recording-sink.js';

/** A history of the fake format: a message, an assistant turn with its calls, or one call's result. */
interface Msg {
  role: 'user' | 'assistant' | 'tool';
  text?: string;
  calls?: string[];
  callId?: string;
}

/** The fake runtime's run: it counts its calls in a field of its own name. */
interface FakeRun extends ResumableRun<Msg> {
  calls: number;
  paused?: { requestId: string; toolCallId: string; calls: number };
}

const unanswered = (messages: readonly Msg[]) => {
  const answered = new Set(messages.flatMap((m) => (m.role === 'tool' ? [m.callId!] : [])));
  return messages.flatMap((m) => m.calls ?? []).filter((id) => !answered.has(id));
};

const format: RunFormat<Msg, FakeRun> = {
  newRun: (sessionId) => ({ sessionId, status: 'idle', messages: [], calls: 0, rev: 0, updatedAt: 0 }),
  callsOf: (run) => run.calls,
  withCalls: (run, calls) => ({ ...run, calls, ...(run.paused ? { paused: { ...run.paused, calls } } : {}) }),
  userMessage: (text) => ({ role: 'user', text }),
  hasToolResult: (messages, id) => messages.some((m) => m.role === 'tool' && m.callId === id),
  unansweredToolCalls: unanswered,
  withToolResult: (messages, id, text) => [...messages, { role: 'tool', callId: id, text }],
  withCallArguments: (messages) => messages,
  awaitsModelAfter: (run, id) =>
    !!run && run.status !== 'paused' && run.messages.at(-1)?.callId === id && unanswered(run.messages).length === 0,
};

const START = Date.UTC(2026, 0, 1);
const STALLED_AFTER = 10_000;
const ANSWER: Answer = { selections: ['safe'], customInput: '', cancelled: false };
const CANCEL: Answer = { selections: [], customInput: '', cancelled: true };

type Turn = (input: TurnInput<Msg>, coordinator: Coordinator) => Promise<TurnOutcome>;

/** A turn that asks the user (through the coordinator, as a turn runner does) on call `callId`. */
const asks =
  (callId: string): Turn =>
  async ({ sessionId, messages, used }, coordinator) => {
    const out = await coordinator.intercept(
      [
        {
          id: callId,
          function: { name: 'ask_user', arguments: { title: 'Which way?', mode: 'single', options: [{ id: 'safe', label: 'Safe' }] } },
        },
      ],
      { sessionId, noneOpen: true },
    );
    messages.push({ role: 'assistant', calls: [callId] });
    return { kind: 'paused', count: used + 1, record: out.interaction!, event: out.event! };
  };

/** A turn that answers in text. */
const replies =
  (text: string): Turn =>
  async ({ messages, used, sse }) => {
    sse.send('message_delta', { text });
    messages.push({ role: 'assistant', text });
    return { kind: 'completed', count: used + 1 };
  };

async function setup(t: { after(fn: () => Promise<void>): void }, turns: Turn[]) {
  const clock = { now: START };
  const now = () => clock.now;
  const audit = memoryAuditLogger();
  const seen: Array<{ used: number; last: Msg | undefined }> = [];
  let engine!: RunEngine<Msg, FakeRun>;
  let states!: StoredRuns<FakeRun>;
  let index!: PausedIndex;
  let coordinator!: Coordinator;
  const kit = createAskUserKit({
    store: 'memory',
    authorize: (caller) => caller !== 'stranger',
    logger: audit,
    now,
    expiryTimers: false,
    runtime: (given) => {
      coordinator = given;
      states = new StoredRuns<FakeRun>(given.store, { keyPrefix: 'fake:', now });
      index = new PausedIndex(given.store, 'fake:paused:');
      engine = new RunEngine({
        coordinator: given,
        store: given.store,
        states,
        leases: new RunLeases(given.store, { ttlMs: 15_000, now }),
        index,
        format,
        runTurn: (input) => {
          seen.push({ used: input.used, last: input.messages.at(-1) });
          const turn = turns.shift();
          if (!turn) throw new Error('the fake model has no turn left');
          return turn(input, coordinator);
        },
        limit: { calls: 4, words: 'calls' },
        resumeWaitMs: 100,
        resumeStalledAfterMs: STALLED_AFTER,
        onError: (err) => assert.fail(err as Error),
        now,
      });
      return engine.asRuntime();
    },
  });
  t.after(() => kit.close());
  const chat = async (sessionId: string, message: string, caller: unknown = 'owner'): Promise<RecordingSink> => {
    const sse = recordingSink();
    await kit.runtime.chat({ caller, sessionId, message, sse });
    return sse;
  };
  /** The continue route's part before the engine: the claim, then `resume` on the continue's stream. */
  const answer = async (requestId: string, given: Answer): Promise<RecordingSink> => {
    const claimed = await kit.store.claim(requestId, { status: given.cancelled ? 'cancelled' : 'answered', at: now(), answer: given });
    assert.ok(claimed.ok);
    const sse = recordingSink();
    await kit.runtime.resume({ record: claimed.record, answer: given, toolResultContent: answerToolResultText(given), sse });
    return sse;
  };
  return { kit, engine, states: () => states, index: () => index, clock, audit, seen, turns, chat, answer };
}

const names = (sse: RecordingSink) => sse.events.map((e) => e.event);
const dataOf = (sse: RecordingSink, event: string) => sse.events.find((e) => e.event === event)?.data;

test('chat → pause → resume → done: the answer reaches the next turn, with the calls counted on', async (t) => {
  const s = await setup(t, [asks('call_1'), replies('done, safely')]);
  const first = await s.chat('s1', 'do it');
  assert.deepEqual(names(first), ['user_input_required', 'done']);
  assert.equal(dataOf(first, 'done').reason, 'paused');
  const card = dataOf(first, 'user_input_required');
  let run = await s.engine.getRun('s1');
  assert.equal(run?.status, 'paused');
  assert.deepEqual(run?.paused, { requestId: card.id, toolCallId: 'call_1', calls: 1 });
  assert.deepEqual(await s.index().list(), ['s1'], 'listed for sweeps while paused');
  assert.equal(await s.engine.isResumable((await s.kit.store.get(card.id))!), true);

  const resumed = await s.answer(card.id, ANSWER);
  assert.deepEqual(names(resumed), ['tool_result', 'message_delta', 'done']);
  assert.equal(dataOf(resumed, 'tool_result').content, answerToolResultText(ANSWER));
  assert.equal(dataOf(resumed, 'done').reason, 'completed');
  assert.deepEqual(s.seen[1], { used: 1, last: { role: 'tool', callId: 'call_1', text: answerToolResultText(ANSWER) } });
  run = await s.engine.getRun('s1');
  assert.equal(run?.status, 'idle');
  assert.equal(run?.calls, 2);
  assert.equal(run?.owed, undefined);
  assert.equal(run?.lease, undefined);
  assert.equal(run?.updatedAt, START, 'written on the injected clock');
  assert.equal((await s.kit.store.get(card.id))?.toolResultWritten, true);
  assert.deepEqual(await s.index().list(), []);
});

test('a new message supersedes the open card: its closing result goes into history before the message runs', async (t) => {
  const s = await setup(t, [asks('call_1'), replies('fine, something else')]);
  const card = dataOf(await s.chat('s1', 'do it'), 'user_input_required');
  const next = await s.chat('s1', 'never mind, do something else');
  assert.deepEqual(names(next), ['interaction_resolved', 'tool_result', 'message_delta', 'done']);
  assert.equal(dataOf(next, 'interaction_resolved').status, 'superseded');
  assert.equal(dataOf(next, 'tool_result').content, closedToolResultText('superseded'));
  assert.equal((await s.kit.store.get(card.id))?.status, 'superseded');
  const run = await s.engine.getRun('s1');
  assert.deepEqual(
    run?.messages.map((m) => m.role),
    ['user', 'assistant', 'tool', 'user', 'assistant'],
  );
  assert.equal(run?.calls, 1, 'a new message starts counting afresh');
  assert.ok(s.audit.entries.some((e) => e.event === 'superseded'));
});

test('a cancelled card: its result is written and the run stops, with no model call', async (t) => {
  const s = await setup(t, [asks('call_1')]);
  const card = dataOf(await s.chat('s1', 'do it'), 'user_input_required');
  const cancelled = await s.answer(card.id, CANCEL);
  assert.deepEqual(names(cancelled), ['tool_result', 'done']);
  assert.equal(dataOf(cancelled, 'done').reason, 'cancelled');
  assert.equal(s.seen.length, 1, 'no second turn');
  const run = await s.engine.getRun('s1');
  assert.equal(run?.status, 'idle');
  assert.equal(run?.owed, undefined, 'a cancel owes the model nothing');
  assert.deepEqual(await s.index().list(), []);
});

test('a run stalled on an accepted answer: a sweep leaves it while young, and continues it once old enough', async (t) => {
  const s = await setup(t, [asks('call_1'), replies('went on after the crash')]);
  const card = dataOf(await s.chat('s1', 'do it'), 'user_input_required');
  // The answer's process died after writing the ToolResult, before the model went on.
  const claimed = await s.kit.store.claim(card.id, { status: 'answered', at: s.clock.now, answer: ANSWER });
  assert.ok(claimed.ok);
  await writeToolResult(format, s.states(), claimed.record, answerToolResultText(ANSWER));
  assert.deepEqual((await s.engine.getRun('s1'))?.owed, { toolCallId: 'call_1', since: START });

  s.clock.now = START + STALLED_AFTER - 1;
  assert.equal((await s.engine.sweep()).resumed, 0, 'a young stall may be a continue in flight');
  assert.deepEqual(await s.index().list(), ['s1'], 'still listed for the next sweep');

  s.clock.now = START + STALLED_AFTER;
  const report = await s.engine.sweep();
  assert.equal(report.resumed, 1);
  assert.equal(s.seen.length, 2);
  const run = await s.engine.getRun('s1');
  assert.equal(run?.status, 'idle');
  assert.equal(run?.owed, undefined);
  assert.equal(run?.messages.at(-1)?.text, 'went on after the crash');
  assert.deepEqual(await s.index().list(), []);
});

test('roll-forward: a claimed answer whose ToolResult was never written goes in, audited as recovered', async (t) => {
  const s = await setup(t, [asks('call_1')]);
  const card = dataOf(await s.chat('s1', 'do it'), 'user_input_required');
  // Claimed by a process that died before anything else.
  assert.ok((await s.kit.store.claim(card.id, { status: 'answered', at: s.clock.now, answer: ANSWER })).ok);

  const rolled = await s.engine.rollForward('s1');
  assert.equal(rolled.kind, 'rolled_forward');
  assert.ok(rolled.kind === 'rolled_forward' && rolled.wrote);
  const run = await s.engine.getRun('s1');
  assert.equal(run?.status, 'idle');
  assert.deepEqual(run?.messages.at(-1), { role: 'tool', callId: 'call_1', text: answerToolResultText(ANSWER) });
  assert.deepEqual(run?.owed, { toolCallId: 'call_1', since: START }, 'the model is owed the answer');
  assert.equal((await s.kit.store.get(card.id))?.toolResultWritten, true);
  assert.equal(s.audit.entries.filter((e) => e.recovered === true).length, 1);
  assert.equal((await s.engine.rollForward('s1')).kind, 'nothing', 'idempotent');
});

test('a session whose lease another process holds: the message gets session_busy and nothing runs', async (t) => {
  const s = await setup(t, []);
  const elsewhere = new RunLeases(s.kit.store, { ttlMs: 60_000, now: () => s.clock.now });
  t.after(() => elsewhere.close());
  const hold = elsewhere.mint('s1');
  await s.states().update('s1', () => ({ ...format.newRun('s1'), status: 'running', lease: hold.lease }));

  const refused = await s.chat('s1', 'hello');
  assert.deepEqual(names(refused), ['error', 'done']);
  assert.equal(dataOf(refused, 'error').code, 'session_busy');
  assert.equal(s.seen.length, 0);
  assert.equal((await s.engine.getRun('s1'))?.lease?.owner, hold.lease.owner, 'the other runner keeps its lease');
});

test('the chat door refuses a stranger before anything is stored, superseded or streamed', async (t) => {
  const s = await setup(t, [asks('call_1')]);
  const card = dataOf(await s.chat('s1', 'do it'), 'user_input_required');

  const open = await s.chat('s1', 'let me in', 'stranger');
  assert.deepEqual(names(open), ['error', 'done']);
  assert.equal(dataOf(open, 'error').code, 'forbidden');
  assert.equal(open.closed, true);

  let opened = false;
  await assert.rejects(
    s.kit.runtime.chat({
      caller: 'stranger',
      sessionId: 's1',
      message: 'let me in',
      sse: () => ((opened = true), recordingSink()),
    }),
    (err) => err instanceof AskUserError && err.code === 'forbidden',
  );
  assert.equal(opened, false, 'a stream given as a function never opens for a refused caller');
  assert.equal((await s.kit.store.get(card.id))?.status, 'pending', 'the owner card stays open');
  assert.equal((await s.engine.getRun('s1'))?.status, 'paused');
  assert.equal(s.seen.length, 1);
  assert.equal(s.audit.entries.filter((e) => e.event === 'rejected' && e.reason === 'forbidden').length, 2);
});

test('each runtime keeps its stored call count under its own field: `round` for the loop, `step` for the AI SDK', () => {
  const pausedOn = { requestId: 'ask_1', toolCallId: 'call_1' };
  const loop = chatRunFormat();
  const loopRun = loop.withCalls({ ...emptyRun('s'), status: 'paused', paused: { ...pausedOn, round: 0 } }, 3);
  assert.equal(loop.callsOf(loopRun), 3);
  assert.deepEqual([loopRun.round, loopRun.paused], [3, { ...pausedOn, round: 3 }]);
  const aiRun = aiRunFormat.withCalls({ ...emptyAiRun('s'), status: 'paused', paused: { ...pausedOn, step: 0 } }, 2);
  assert.equal(aiRunFormat.callsOf(aiRun), 2);
  assert.deepEqual([aiRun.step, aiRun.paused], [2, { ...pausedOn, step: 2 }]);
});
