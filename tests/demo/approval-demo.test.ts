/**
 * The demo's tools that need approval (contract §12, docs/protocol.md §7) and its scripted assistant's deploy
 * topic: which calls a deploy message makes, what the tools answer, the reply that quotes what came back; then
 * the whole flow over HTTP on each runtime (chat, responses, ai-sdk) with the demo's own assistant as the model:
 * the call needing no approval runs before the card, an edit reaches the tool, a denial's reason reaches the
 * model, and "always" is listed in the session view and lets the next call through without a card.
 */
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createAssistant,
  DELETE_BRANCH,
  DEPLOY_PREVIEW,
  deployPlanOf,
  LIST_TEST_SUITES,
  topicOf,
} from '../../demo/scripted-model/index.js';
import type { ChatRequestBody } from '../../demo/scripted-model/index.js';
import { DEMO_RUNTIMES } from '../../demo/demo-core.js';
import { demoToolsFor, previewUrl } from '../../demo/tools.js';
import { all, first, getJson, postStream, shape, text } from './sse-client.js';
import { startHarness } from './harness.js';

const respond = createAssistant({ pieceDelayMs: 0 });
const offered = (...names: string[]) => names.map((name) => ({ type: 'function', function: { name } }));
const ALL_TOOLS = offered('ask_user', LIST_TEST_SUITES, DEPLOY_PREVIEW, DELETE_BRANCH);
const body = (messages: ChatRequestBody['messages'], tools = ALL_TOOLS): ChatRequestBody => ({ model: 'm', messages, tools });
const ctx = { sessionId: 's', signal: new AbortController().signal };

test('deploy and 部署 pick the deploy topic; the other topics still pick theirs', () => {
  for (const t of ['deploy feature/login', 'Deploy and clean up', '部署并清理', '帮我部署 feature/x'])
    assert.equal(topicOf(t), 'deploy', t);
  const others: Array<[string, string]> = [
    ['plan a release for next month', 'release'],
    ['make a release plan', 'plan'],
    ['which tests should run', 'tests'],
    ['book a meeting', 'meeting'],
    ['输出到哪个目录', 'directory'],
    ['refactor the parser', 'approach'],
  ];
  for (const [t, topic] of others) assert.equal(topicOf(t), topic, t);
});

test('a deploy message names the branch, the environment and, for a clean-up, the branch to delete', () => {
  assert.deepEqual(deployPlanOf('deploy feature/login'), { branch: 'feature/login', environment: 'preview' });
  assert.deepEqual(deployPlanOf('部署 fix/typo 到预发'), { branch: 'fix/typo', environment: 'staging' });
  assert.deepEqual(deployPlanOf('deploy and clean up'), { branch: 'feature/login', environment: 'preview', stale: 'old/experiment' });
  assert.deepEqual(deployPlanOf('部署 feature/a 并删除 old/b'), { branch: 'feature/a', environment: 'preview', stale: 'old/b' });
});

test('"deploy X" calls deploy_preview alone; "deploy and clean up" adds list_test_suites and delete_branch in the same turn', () => {
  const one = respond(body([{ role: 'user', content: 'deploy feature/login' }]));
  assert.deepEqual(one.toolCalls, [{ name: DEPLOY_PREVIEW, arguments: { branch: 'feature/login', environment: 'preview' } }]);
  const three = respond(body([{ role: 'user', content: '部署并清理' }]));
  assert.deepEqual(
    three.toolCalls?.map((c) => c.name),
    [DEPLOY_PREVIEW, LIST_TEST_SUITES, DELETE_BRANCH],
  );
  assert.match(three.text ?? '', /部署/);
  // Without the deploy tool it asks where it would have deployed, as a question.
  const asked = respond(body([{ role: 'user', content: 'deploy feature/login' }], offered('ask_user')));
  assert.equal(asked.toolCalls?.[0]?.name, 'ask_user');
});

test('after the turn’s results it quotes each one: the URL, the deletion, a denial’s reason — even when the last result is the suites', () => {
  const calls = [
    { id: 'c1', type: 'function', function: { name: DEPLOY_PREVIEW, arguments: '{"branch":"feature/login","environment":"staging"}' } },
    { id: 'c2', type: 'function', function: { name: LIST_TEST_SUITES, arguments: '{}' } },
    { id: 'c3', type: 'function', function: { name: DELETE_BRANCH, arguments: '{"branch":"old/experiment"}' } },
  ];
  const deployed = JSON.stringify({
    deployed: true,
    branch: 'feature/login',
    environment: 'staging',
    url: previewUrl('feature/login', 'staging'),
  });
  const reply = respond(
    body([
      { role: 'user', content: 'deploy and clean up' },
      { role: 'assistant', content: 'ok', tool_calls: calls },
      { role: 'tool', tool_call_id: 'c1', content: deployed },
      { role: 'tool', tool_call_id: 'c3', content: '{"denied":true,"reason":"keep it for QA"}' },
      { role: 'tool', tool_call_id: 'c2', content: JSON.stringify({ suites: [1, 2, 3, 4] }) },
    ]),
  );
  assert.equal(reply.toolCalls, undefined);
  assert.equal(
    reply.text,
    'Here is what came back:\n' +
      'deploy_preview: deployed feature/login → staging at https://preview.example.test/feature-login/staging\n' +
      'list_test_suites: 4 test suites\n' +
      'delete_branch: denied, reason: “keep it for QA”',
  );
  const zh = respond(
    body([
      { role: 'user', content: '部署 feature/login' },
      { role: 'assistant', content: null, tool_calls: [calls[0]] },
      { role: 'tool', tool_call_id: 'c1', content: '{"denied":true,"reason":"superseded"}' },
    ]),
  );
  assert.equal(zh.text, '执行结果：\ndeploy_preview：被拒绝，原因：“superseded”');
});

test('the demo tools: deploy_preview and delete_branch as §7 pins them, the card’s sentence in the demo’s language', async () => {
  const [list, deploy, del] = demoToolsFor('zh');
  assert.deepEqual([list!.name, deploy!.name, del!.name], [LIST_TEST_SUITES, DEPLOY_PREVIEW, DELETE_BRANCH]);
  assert.equal(list!.needsApproval, undefined);
  assert.deepEqual([deploy!.needsApproval, deploy!.editable, deploy!.allowAlways], [true, true, true]);
  assert.deepEqual([del!.needsApproval, del!.editable ?? false, del!.allowAlways ?? false], [true, false, false]);
  assert.equal(deploy!.parameters.additionalProperties, false);
  assert.equal(del!.parameters.additionalProperties, false);
  assert.deepEqual((deploy!.parameters.properties as any).environment.enum, ['staging', 'preview']);
  assert.equal(deploy!.describe!({ branch: 'feature/login', environment: 'preview' }), '将分支 feature/login 部署到 preview 环境');
  assert.equal(demoToolsFor('en')[1]!.describe!({ branch: 'feature/login', environment: 'preview' }), 'Deploy feature/login to preview');
  assert.equal(
    await deploy!.run({ branch: 'feature/login', environment: 'preview' }, ctx),
    '{"deployed":true,"branch":"feature/login","environment":"preview","url":"https://preview.example.test/feature-login/preview"}',
  );
  assert.equal(await del!.run({ branch: 'old/experiment' }, ctx), '{"deleted":true,"branch":"old/experiment"}');
  // Arguments the schema refuses never deploy anything: the model reads why.
  assert.deepEqual(await deploy!.run({ branch: 'x', environment: 'production' }, ctx), {
    content: 'Error: deploy_preview: environment must be one of staging, preview',
    isError: true,
  });
});

for (const runtime of DEMO_RUNTIMES) {
  describe(`the deploy topic over HTTP on the ${runtime} runtime, the demo's assistant as the model`, () => {
    it('list_test_suites runs before the card; an edited approval deploys the edit; a denial’s reason reaches the model; "always" skips the next card', async (t) => {
      const h = await startHarness({ runtime, fallback: respond });
      t.after(() => h.close());
      const sessionId = `s-approve-${runtime}`;
      const chat = await postStream(`${h.url}/api/chat`, { sessionId, message: '部署 feature/login 并清理' });
      assert.equal(chat.status, 200);
      assert.deepEqual(
        shape(chat).filter((e) => e !== 'message_delta'),
        ['tool_result', 'user_input_required', 'done'],
      );
      assert.equal(first(chat, 'tool_result').name, LIST_TEST_SUITES);
      const card = first(chat, 'user_input_required');
      assert.equal(card.mode, 'approval');
      assert.equal(card.title, '允许 2 项操作？');
      assert.deepEqual(
        card.approvals.map((a: any) => [a.tool, a.title, a.editable, a.allowAlways]),
        [
          [DEPLOY_PREVIEW, '将分支 feature/login 部署到 preview 环境', true, true],
          [DELETE_BRANCH, '删除分支 old/experiment', false, false],
        ],
      );
      assert.equal(card.toolCallId, card.approvals[0].toolCallId);
      const [deployCall, deleteCall] = card.approvals.map((a: any) => a.toolCallId);

      const refused = await postStream(`${h.url}/api/chat/continue`, {
        sessionId,
        requestId: card.id,
        decisions: [
          { toolCallId: deployCall, decision: 'approve', arguments: { branch: 'feature/login', environment: 'production' } },
          { toolCallId: deleteCall, decision: 'deny' },
        ],
        cancelled: false,
      });
      assert.equal(refused.status, 422);
      assert.deepEqual([refused.json.error.code, refused.json.error.field], ['invalid_answer', 'decisions[0].arguments.environment']);

      const cont = await postStream(`${h.url}/api/chat/continue`, {
        sessionId,
        requestId: card.id,
        decisions: [
          { toolCallId: deployCall, decision: 'approve', arguments: { branch: 'feature/login', environment: 'staging' } },
          { toolCallId: deleteCall, decision: 'deny', reason: 'keep it for QA' },
        ],
        cancelled: false,
      });
      assert.equal(cont.status, 200);
      const results = Object.fromEntries(all(cont, 'tool_result').map((r: any) => [r.name, r.content]));
      assert.equal(results[DELETE_BRANCH], '{"denied":true,"reason":"keep it for QA"}');
      assert.equal(
        results[DEPLOY_PREVIEW],
        '{"deployed":true,"branch":"feature/login","environment":"staging","url":"https://preview.example.test/feature-login/staging"}',
      );
      assert.match(
        text(cont),
        /deploy_preview：已部署 feature\/login → staging，地址 https:\/\/preview\.example\.test\/feature-login\/staging/,
      );
      assert.match(text(cont), /delete_branch：被拒绝，原因：“keep it for QA”/);
      assert.deepEqual(first(cont, 'done'), { reason: 'completed' });
      // The model's last request: every call answered, the edit in the call itself.
      const sent = h.model.requests.at(-1)!.messages;
      const call = sent.flatMap((m: any) => m.tool_calls ?? []).find((c: any) => c.id === deployCall);
      assert.deepEqual(JSON.parse(call.function.arguments), { branch: 'feature/login', environment: 'staging' });
      assert.equal((await getJson(`${h.url}/api/session?sessionId=${sessionId}`)).body.alwaysAllowed.length, 0);

      // "Always": the next deploy runs without a card, and the session view lists the tool.
      const again = await postStream(`${h.url}/api/chat`, { sessionId, message: 'deploy feature/a' });
      const second = first(again, 'user_input_required');
      assert.equal(second.approvals.length, 1);
      const allowed = await postStream(`${h.url}/api/chat/continue`, {
        sessionId,
        requestId: second.id,
        decisions: [{ toolCallId: second.toolCallId, decision: 'approve', always: true }],
        cancelled: false,
      });
      assert.deepEqual(first(allowed, 'done'), { reason: 'completed' });
      const view = (await getJson(`${h.url}/api/session?sessionId=${sessionId}`)).body;
      assert.deepEqual(view.alwaysAllowed, [DEPLOY_PREVIEW]);
      const third = await postStream(`${h.url}/api/chat`, { sessionId, message: 'deploy feature/b' });
      assert.equal(first(third, 'user_input_required'), undefined, 'no card once the tool is allowed for the session');
      assert.match(first(third, 'tool_result').content, /"branch":"feature\/b"/);
      assert.match(text(third), /deployed feature\/b → preview at https:\/\/preview\.example\.test\/feature-b\/preview/);
      assert.deepEqual(first(third, 'done'), { reason: 'completed' });
    });
  });
}

test('a new session’s view lists no tool as allowed', async (t) => {
  const h = await startHarness({ fallback: respond });
  t.after(() => h.close());
  assert.deepEqual((await getJson(`${h.url}/api/session?sessionId=s-fresh`)).body, {
    sessionId: 's-fresh',
    status: 'new',
    items: [],
    alwaysAllowed: [],
  });
});
