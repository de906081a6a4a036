/**
 * Contract §12 on the plugin loop, over real HTTP with the real `openai` client and a scripted model: the
 * calls of one turn that need approval become one card after the calls that need none ran; approved calls
 * run with the approved (edited) arguments, denied ones get `{"denied":true,"reason":…}`; "always" lets the
 * tool's later calls through without a card; a cancel, a supersede and an expiry deny every call; and a call
 * marked "about to run" when its runner died gets `{"interrupted":true}` unless its tool is idempotent.
 */
import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { openStore, type PendingStore } from '../../../plugin/index.js';
import type { LoopTool } from '../../../plugin/loop/index.js';
import { startScriptedModel, type ChatRequestBody, type ScriptedModel, type TurnScript } from '../../helpers/scripted-model.js';
import { askSingle } from '../../helpers/ask-calls.js';
import { frame, startLoopServer, type LoopServer } from '../loop/loop-server.js';
import type { SseFrame } from '../harness.js';

const DEPLOY_SCHEMA = {
  type: 'object',
  properties: { branch: { type: 'string', minLength: 1 }, environment: { enum: ['staging', 'preview'] } },
  required: ['branch', 'environment'],
  additionalProperties: false,
};

/** The tools of a test, each recording the arguments of every run. */
function tools(runs: Array<{ tool: string; args: Record<string, unknown> }>, extra: Partial<LoopTool> = {}): LoopTool[] {
  const record = (tool: string) => (args: Record<string, unknown>) => {
    runs.push({ tool, args });
    return JSON.stringify({ ok: tool, ...args });
  };
  return [
    {
      name: 'deploy_preview',
      description: 'Deploy a branch.',
      parameters: DEPLOY_SCHEMA,
      needsApproval: true,
      editable: true,
      allowAlways: true,
      describe: (a) => `Deploy ${String(a.branch)} to ${String(a.environment)}`,
      run: record('deploy_preview'),
      ...extra,
    },
    {
      name: 'delete_branch',
      description: 'Delete a branch.',
      parameters: { type: 'object', properties: { branch: { type: 'string' }, token: { type: 'string' } }, required: ['branch'] },
      needsApproval: (a) => a.branch !== 'scratch',
      redact: (a) => ({ ...a, ...(a.token ? { token: '[redacted]' } : {}) }),
      run: record('delete_branch'),
    },
    { name: 'list_suites', description: 'List suites.', parameters: { type: 'object' }, run: record('list_suites') },
  ];
}

const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, arguments: args });
const toolResults = (frames: readonly SseFrame[]) => frames.filter((f) => f.event === 'tool_result').map((f) => f.data as any);
/** The tool messages the model got on request `i`, by call id. */
const sentResults = (model: ScriptedModel, i: number) =>
  Object.fromEntries(
    model.requests[i]!.messages.filter((m: any) => m.role === 'tool').map((m: any) => [m.tool_call_id, m.content as string]),
  );

describe('tool approval on the plugin loop (contract §12)', () => {
  let store: PendingStore;
  let model: ScriptedModel;
  let server: LoopServer;
  afterEach(async () => {
    await server?.close();
    await model?.close();
    await store?.close();
  });

  async function start(turns: TurnScript[], runs: Array<{ tool: string; args: Record<string, unknown> }>, extra: Partial<LoopTool> = {}) {
    store = await openStore('memory');
    model = await startScriptedModel({ turns });
    server = await startLoopServer(store, model.baseURL, { tools: tools(runs, extra), locale: 'en' });
  }

  it('puts the calls of one turn that need approval on one card after the others ran; approve with an edit, deny with a reason', async () => {
    const runs: Array<{ tool: string; args: Record<string, unknown> }> = [];
    await start(
      [
        {
          toolCalls: [
            call('c_deploy', 'deploy_preview', { branch: 'feat/a', environment: 'preview' }),
            call('c_list', 'list_suites', {}),
            call('c_delete', 'delete_branch', { branch: 'old', token: 'tok-secret' }),
          ],
        },
        { text: 'done' },
      ],
      runs,
    );
    const frames = await server.chat('s1', 'deploy');
    assert.deepEqual(runs, [{ tool: 'list_suites', args: {} }], 'the call that needs no approval ran before the card; nothing else');
    assert.deepEqual(
      toolResults(frames).map((r) => r.toolCallId),
      ['c_list'],
    );
    const card = frame(frames, 'user_input_required');
    assert.equal(card.mode, 'approval');
    assert.equal(card.title, 'Allow 2 actions?');
    assert.equal(card.toolCallId, 'c_deploy');
    assert.deepEqual(card.approvals, [
      {
        toolCallId: 'c_deploy',
        tool: 'deploy_preview',
        title: 'Deploy feat/a to preview',
        arguments: { branch: 'feat/a', environment: 'preview' },
        editable: true,
        allowAlways: true,
        schema: DEPLOY_SCHEMA,
      },
      {
        toolCallId: 'c_delete',
        tool: 'delete_branch',
        title: 'Delete a branch.',
        arguments: { branch: 'old', token: '[redacted]' },
        editable: false,
        allowAlways: false,
      },
    ]);
    assert.deepEqual(frame(frames, 'done'), { reason: 'paused' });

    const answered = await server.decide('s1', card.id, [
      { toolCallId: 'c_deploy', decision: 'approve', arguments: { branch: 'feat/a', environment: 'staging' } },
      { toolCallId: 'c_delete', decision: 'deny', reason: 'keep it' },
    ]);
    assert.equal(answered.status, 200);
    const results = toolResults(answered.frames);
    assert.deepEqual(
      results.map((r) => [r.toolCallId, r.name, r.content]),
      [
        ['c_delete', 'delete_branch', '{"denied":true,"reason":"keep it"}'],
        ['c_deploy', 'deploy_preview', JSON.stringify({ ok: 'deploy_preview', branch: 'feat/a', environment: 'staging' })],
      ],
    );
    assert.deepEqual(runs.slice(1), [{ tool: 'deploy_preview', args: { branch: 'feat/a', environment: 'staging' } }], 'ran once, edited');
    assert.deepEqual(frame(answered.frames, 'done'), { reason: 'completed' });
    // The model's next request: every call answered, in call order, the edit in its call.
    const sent = model.requests[1]!.messages;
    assert.deepEqual(
      sent.filter((m: any) => m.role === 'tool').map((m: any) => m.tool_call_id),
      ['c_deploy', 'c_list', 'c_delete'],
    );
    const assistant = sent.find((m: any) => m.role === 'assistant') as any;
    assert.equal(assistant.tool_calls[0].function.arguments, JSON.stringify({ branch: 'feat/a', environment: 'staging' }));
    assert.equal(sentResults(model, 1).c_delete, '{"denied":true,"reason":"keep it"}');
    const run = await server.loop.getRun('s1');
    assert.equal(run?.status, 'idle');
    assert.equal(run?.approved, undefined);
  });

  it('a function needsApproval decides per call: a call it lets through runs with no card', async () => {
    const runs: Array<{ tool: string; args: Record<string, unknown> }> = [];
    await start([{ toolCalls: [call('c1', 'delete_branch', { branch: 'scratch' })] }, { text: 'ok' }], runs);
    const frames = await server.chat('s2', 'clean');
    assert.equal(frame(frames, 'user_input_required'), undefined);
    assert.deepEqual(runs, [{ tool: 'delete_branch', args: { branch: 'scratch' } }]);
    assert.deepEqual(frame(frames, 'done'), { reason: 'completed' });
  });

  it('"always" approves the tool for the rest of the session: its next call runs without a card', async () => {
    const runs: Array<{ tool: string; args: Record<string, unknown> }> = [];
    await start(
      [
        { toolCalls: [call('c1', 'deploy_preview', { branch: 'a', environment: 'preview' })] },
        { text: 'first done' },
        { toolCalls: [call('c2', 'deploy_preview', { branch: 'b', environment: 'preview' })] },
        { text: 'second done' },
      ],
      runs,
    );
    const card = frame(await server.chat('s3', 'deploy a'), 'user_input_required');
    const answered = await server.decide('s3', card.id, [{ toolCallId: 'c1', decision: 'approve', always: true }]);
    assert.deepEqual(frame(answered.frames, 'done'), { reason: 'completed' });
    assert.deepEqual((await server.loop.getRun('s3'))?.alwaysAllowed, ['deploy_preview']);
    const second = await server.chat('s3', 'deploy b');
    assert.equal(frame(second, 'user_input_required'), undefined, 'no card the second time');
    assert.deepEqual(
      runs.map((r) => r.args.branch),
      ['a', 'b'],
    );
  });

  it('a cancel denies every call with "cancelled" and ends the run; nothing runs', async () => {
    const runs: Array<{ tool: string; args: Record<string, unknown> }> = [];
    await start([{ toolCalls: [call('c1', 'deploy_preview', { branch: 'a', environment: 'preview' })] }], runs);
    const card = frame(await server.chat('s4', 'deploy'), 'user_input_required');
    const cancelled = await server.decide('s4', card.id, [], true);
    assert.equal(cancelled.status, 200);
    assert.deepEqual(
      toolResults(cancelled.frames).map((r) => r.content),
      ['{"denied":true,"reason":"cancelled"}'],
    );
    assert.deepEqual(frame(cancelled.frames, 'done'), { reason: 'cancelled' });
    assert.deepEqual(runs, []);
    assert.equal(model.requests.length, 1, 'no model call after a cancel');
  });

  it('a new message supersedes the open card: every call denied with "superseded" before the model is asked', async () => {
    const runs: Array<{ tool: string; args: Record<string, unknown> }> = [];
    await start([{ toolCalls: [call('c1', 'deploy_preview', { branch: 'a', environment: 'preview' })] }, { text: 'fine' }], runs);
    const card = frame(await server.chat('s5', 'deploy'), 'user_input_required');
    const next = await server.chat('s5', 'never mind');
    assert.deepEqual(
      toolResults(next).map((r) => r.content),
      ['{"denied":true,"reason":"superseded"}'],
    );
    assert.equal(sentResults(model, 1).c1, '{"denied":true,"reason":"superseded"}');
    assert.deepEqual(runs, []);
    const late = await server.decide('s5', card.id, [{ toolCallId: 'c1', decision: 'approve' }]);
    assert.equal(late.status, 409, 'nothing runs after its card closed');
    assert.deepEqual(runs, []);
  });

  it('an ask_user call in the same turn waits: it gets an error result and the approval card is shown', async () => {
    const runs: Array<{ tool: string; args: Record<string, unknown> }> = [];
    await start([{ toolCalls: [askSingle('c_ask'), call('c1', 'deploy_preview', { branch: 'a', environment: 'preview' })] }], runs);
    const frames = await server.chat('s6', 'go');
    assert.equal(frame(frames, 'user_input_required').mode, 'approval');
    const refused = toolResults(frames).find((r) => r.toolCallId === 'c_ask');
    assert.equal(refused.isError, true);
    assert.match(refused.content, /waiting for the user's approval/);
  });

  it('an approval card that all denies still goes on to the model with the denials', async () => {
    const runs: Array<{ tool: string; args: Record<string, unknown> }> = [];
    const seen: ChatRequestBody[] = [];
    await start(
      [
        { toolCalls: [call('c1', 'deploy_preview', { branch: 'a', environment: 'preview' })] },
        (body) => (seen.push(body), { text: 'understood' }),
      ],
      runs,
    );
    const card = frame(await server.chat('s7', 'deploy'), 'user_input_required');
    const answered = await server.decide('s7', card.id, [{ toolCallId: 'c1', decision: 'deny' }]);
    assert.deepEqual(frame(answered.frames, 'done'), { reason: 'completed' });
    assert.equal(seen.length, 1);
    assert.equal(sentResults(model, 1).c1, '{"denied":true,"reason":""}');
    assert.deepEqual(runs, []);
  });
});

describe('an approved call at most once across a dead runner (contract §12)', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /**
   * Runner A dies while the approved tool runs (its "about to run" is saved, its result never is); B's
   * sweep continues the run once A's lease lapsed. The tool never runs again unless it is idempotent.
   */
  async function diesWhileRunning(idempotent: boolean) {
    const store = await openStore('memory');
    const model = await startScriptedModel({
      turns: [{ toolCalls: [call('c1', 'deploy_preview', { branch: 'a', environment: 'preview' })] }],
      fallback: { text: 'after' },
    });
    cleanups.push(
      () => store.close(),
      () => model.close(),
    );
    let runsA = 0;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const fast = { leaseTtlMs: 600, resumeWaitMs: 100, resumeStalledAfterMs: 300, locale: 'en' as const };
    const a = await startLoopServer(store, model.baseURL, {
      ...fast,
      tools: [
        {
          ...tools([])[0]!,
          idempotent,
          // Never returns: the process "dies" with the tool in flight.
          run: () => (runsA++, started(), new Promise<string>(() => {})),
        },
      ],
    });
    const card = frame(await a.chat('s-dead', 'deploy'), 'user_input_required');
    const answering = a.decide('s-dead', card.id, [{ toolCallId: 'c1', decision: 'approve' }]).catch(() => undefined);
    await running;
    const marked = await a.loop.getRun('s-dead');
    assert.deepEqual(marked?.approved, [{ toolCallId: 'c1', tool: 'deploy_preview', running: true }], '"about to run" saved first');
    await a.close();
    await answering;

    const runsB: Array<Record<string, unknown>> = [];
    const b = await startLoopServer(store, model.baseURL, {
      ...fast,
      tools: [{ ...tools([])[0]!, idempotent, run: (args) => (runsB.push(args), 'ran again') }],
    });
    cleanups.push(() => b.close());
    const deadline = Date.now() + 20_000;
    while ((await b.loop.sweep()).resumed === 0) {
      assert.ok(Date.now() < deadline, 'the sweep continued the run before the deadline');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const run = await b.loop.getRun('s-dead');
    const result = run!.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'c1');
    return { runsA, runsB, result: result?.content, run, model };
  }

  it('a call found "about to run" gets {"interrupted":true} and is not run again', async () => {
    const { runsA, runsB, result, run, model } = await diesWhileRunning(false);
    assert.equal(runsA, 1);
    assert.deepEqual(runsB, [], 'never run twice');
    assert.equal(result, '{"interrupted":true}');
    assert.equal(run?.approved, undefined);
    assert.equal(run?.status, 'idle');
    assert.equal(model.requests.at(-1)!.messages.at(-1)!.content, '{"interrupted":true}', 'the model was told');
  });

  it('an idempotent tool runs again instead', async () => {
    const { runsB, result } = await diesWhileRunning(true);
    assert.equal(runsB.length, 1);
    assert.equal(result, 'ran again');
  });
});
