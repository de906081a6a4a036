/**
 * Contract §12 on the AI SDK runtime, through `@ai-sdk/openai-compatible` against the scripted Chat
 * Completions server (which refuses any history holding a call without its result): a tool's own AI SDK
 * `needsApproval` (a boolean or a function) and a LoopTool's fields through `fromLoopTools` put the turn's
 * calls on one card; approved calls run once with the (edited) input and their own result, denied ones
 * get `{"denied":true,"reason":…}`; "always" lets the tool's next call through; a zod schema reaches the
 * card as JSON Schema for an editable call.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { tool, type ToolSet } from 'ai';
import { z } from 'zod';
import { openStore } from '../../../plugin/index.js';
import { fromLoopTools, type AiSdkRuntimeOptions } from '../../../plugin/ai-sdk/index.js';
import type { LoopTool } from '../../../plugin/loop/index.js';
import { startScriptedModel, type TurnScript } from '../../helpers/scripted-model.js';
import { dataOf, startAiServer } from './support.js';
import { parseSse } from '../harness.js';

const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, name, arguments: args });

/** POST continue with decisions (a body with `selections` would be refused: the two are exclusive). */
async function decide(server: { url: string }, body: Record<string, unknown>) {
  const res = await fetch(`${server.url}/api/chat/continue`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ cancelled: false, ...body }),
  });
  const text = await res.text();
  return res.status === 200
    ? { status: 200, frames: parseSse(text).frames, json: undefined }
    : { status: res.status, frames: [], json: JSON.parse(text) };
}

async function setup(
  t: { after(fn: () => Promise<void>): void },
  turns: TurnScript[],
  tools: ToolSet | AiSdkRuntimeOptions['tools'],
  extra: Partial<AiSdkRuntimeOptions> = {},
) {
  const endpoint = await startScriptedModel({ turns });
  const provider = createOpenAICompatible({ name: 'scripted', baseURL: endpoint.baseURL, apiKey: 'sk-test' });
  const store = await openStore('memory');
  const server = await startAiServer(store, { model: provider.chatModel('scripted-1'), tools, locale: 'en', ...extra });
  t.after(async () => (await server.close(), await store.close(), await endpoint.close()));
  return { endpoint, server };
}

test("a tool's own AI SDK needsApproval: one card for the turn's calls, approve with an edit and deny with a reason", async (t) => {
  const runs: unknown[] = [];
  const deploy = tool({
    description: 'Deploy a branch',
    inputSchema: z.object({ branch: z.string().min(1), environment: z.enum(['staging', 'preview']) }),
    needsApproval: true,
    execute: async (input) => (runs.push(['deploy', input]), { deployed: true, ...input }),
  });
  const remove = tool({
    description: 'Delete a branch',
    inputSchema: z.object({ branch: z.string() }),
    needsApproval: async ({ branch }) => branch !== 'scratch',
    execute: async (input) => (runs.push(['delete', input]), { deleted: true, ...input }),
  });
  const lookup = tool({
    description: 'Look up',
    inputSchema: z.object({}),
    execute: async () => (runs.push(['lookup']), 'found'),
  });
  const { endpoint, server } = await setup(
    t,
    [
      {
        toolCalls: [
          call('c-deploy', 'deploy', { branch: 'feat/a', environment: 'preview' }),
          call('c-scratch', 'remove', { branch: 'scratch' }),
          call('c-look', 'lookup', {}),
          call('c-delete', 'remove', { branch: 'old' }),
        ],
      },
      { text: 'all done' },
    ],
    { deploy, remove, lookup },
    { approval: { deploy: { editable: true, allowAlways: true, describe: (a) => `Deploy ${String(a.branch)}` } } },
  );
  const first = await server.chat('a1', 'deploy and clean');
  assert.deepEqual(runs, [['lookup'], ['delete', { branch: 'scratch' }]], 'calls that need no approval ran; none of the others');
  const card = dataOf(first, 'user_input_required')[0];
  assert.equal(card.mode, 'approval');
  assert.equal(card.toolCallId, 'c-deploy');
  assert.deepEqual(
    card.approvals.map((a: any) => [a.toolCallId, a.tool, a.title, a.editable, a.allowAlways]),
    [
      ['c-deploy', 'deploy', 'Deploy feat/a', true, true],
      ['c-delete', 'remove', 'Delete a branch', false, false],
    ],
  );
  assert.equal(card.approvals[0].schema.properties.environment.enum.join(), 'staging,preview', 'the zod schema as JSON Schema');

  const bad = await decide(server, {
    sessionId: 'a1',
    requestId: card.id,
    decisions: [
      { toolCallId: 'c-deploy', decision: 'approve', arguments: { branch: 'feat/a', environment: 'prod' } },
      { toolCallId: 'c-delete', decision: 'deny' },
    ],
  });
  assert.equal(bad.status, 422);
  assert.equal(bad.json.error.field, 'decisions[0].arguments.environment');

  const cont = await decide(server, {
    sessionId: 'a1',
    requestId: card.id,
    decisions: [
      { toolCallId: 'c-deploy', decision: 'approve', arguments: { branch: 'feat/a', environment: 'staging' }, always: true },
      { toolCallId: 'c-delete', decision: 'deny', reason: 'not yet' },
    ],
  });
  assert.equal(cont.status, 200);
  assert.deepEqual(
    dataOf(cont.frames, 'tool_result').map((r) => [r.toolCallId, r.name, r.content]),
    [
      ['c-delete', 'remove', '{"denied":true,"reason":"not yet"}'],
      ['c-deploy', 'deploy', '{"deployed":true,"branch":"feat/a","environment":"staging"}'],
    ],
  );
  assert.deepEqual(runs.slice(2), [['deploy', { branch: 'feat/a', environment: 'staging' }]]);
  assert.deepEqual(dataOf(cont.frames, 'done'), [{ reason: 'completed' }]);
  const sent = endpoint.requests[1]!.messages;
  assert.deepEqual(
    sent.filter((m) => m.role === 'tool').map((m) => m.tool_call_id),
    ['c-deploy', 'c-scratch', 'c-look', 'c-delete'],
  );
  assert.equal(
    sent.find((m) => m.role === 'assistant')!.tool_calls[0].function.arguments,
    '{"branch":"feat/a","environment":"staging"}',
    "the model's history holds the call as it ran",
  );
  assert.deepEqual((await server.runtime.getRun('a1'))?.alwaysAllowed, ['deploy']);
});

test('fromLoopTools: a LoopTool with needsApproval asks on the AI SDK runtime too; always lets the next call through', async (t) => {
  const runs: string[] = [];
  const loopTools: LoopTool[] = [
    {
      name: 'deploy_preview',
      description: 'Deploy a preview.',
      parameters: { type: 'object', properties: { branch: { type: 'string' } }, required: ['branch'] },
      needsApproval: true,
      allowAlways: true,
      redact: (a) => ({ ...a, token: '[redacted]' }),
      run: (a) => (runs.push(String(a.branch)), `deployed ${String(a.branch)}`),
    },
  ];
  const { server } = await setup(
    t,
    [
      { toolCalls: [call('d1', 'deploy_preview', { branch: 'a', token: 'tok-secret' })] },
      { text: 'first' },
      { toolCalls: [call('d2', 'deploy_preview', { branch: 'b' })] },
      { text: 'second' },
    ],
    fromLoopTools(loopTools),
  );
  const card = dataOf(await server.chat('a2', 'deploy a'), 'user_input_required')[0];
  assert.deepEqual(card.approvals[0].arguments, { branch: 'a', token: '[redacted]' });
  const cont = await decide(server, {
    sessionId: 'a2',
    requestId: card.id,
    decisions: [{ toolCallId: 'd1', decision: 'approve', always: true }],
  });
  assert.deepEqual(dataOf(cont.frames, 'tool_result')[0].content, 'deployed a');
  const second = await server.chat('a2', 'deploy b');
  assert.equal(dataOf(second, 'user_input_required').length, 0);
  assert.deepEqual(runs, ['a', 'b']);
});
