/**
 * The demo's offline assistant: the question it picks from what the user wrote, and a reply after the
 * ToolResult that names what it actually received.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { askUserArgsSchema } from '../../plugin/contract/schema.js';
import { createAssistant, questionFor, replyToAnswer, topicOf, LIST_TEST_SUITES } from '../../demo/scripted-model/index.js';
import type { ChatRequestBody } from '../../demo/scripted-model/index.js';

const tools = [
  { type: 'function', function: { name: 'ask_user' } },
  { type: 'function', function: { name: LIST_TEST_SUITES } },
];
const body = (messages: ChatRequestBody['messages']): ChatRequestBody => ({ model: 'm', messages, tools });
const respond = createAssistant({ pieceDelayMs: 0 });
const askArgs = (text: string) => {
  const call = respond(body([{ role: 'user', content: text }])).toolCalls?.[0];
  return call?.name === 'ask_user' ? (call.arguments as Record<string, unknown>) : undefined;
};

test('the mode follows what the user asked for, in both languages', () => {
  const cases: Array<[string, string]> = [
    ['plan a release for next month', 'date'],
    ['帮我安排发布', 'date'],
    ['which directory should I use', 'directory'],
    ['输出到哪个目录', 'directory'],
    ['how many servers', 'number'],
    ['需要多少台机器', 'number'],
    ['enable the new features', 'toggle'],
    ['打开哪些开关', 'toggle'],
    ['name the project', 'text'],
    ['给它起个名字', 'text'],
    ['refactor the parser', 'single'],
  ];
  for (const [text, mode] of cases) assert.equal(askArgs(text)?.mode, mode, text);
});

test('every question it asks passes the ask_user schema', () => {
  for (const topic of ['meeting', 'plan', 'release', 'tests', 'directory', 'count', 'features', 'naming', 'approach'] as const) {
    for (const lang of ['zh', 'en'] as const)
      assert.equal(askUserArgsSchema.safeParse(questionFor(topic, lang)).success, true, `${topic}/${lang}`);
  }
});

test('a tests request first calls the ordinary tool, then asks with its result as options', () => {
  const first = respond(body([{ role: 'user', content: '要跑哪些测试' }]));
  assert.equal(first.toolCalls?.[0]?.name, LIST_TEST_SUITES);
  assert.equal(topicOf('which tests'), 'tests');
  const suites = { suites: [{ id: 'smoke', label: 'Smoke', description: 'quick' }] };
  const second = respond(
    body([
      { role: 'user', content: '要跑哪些测试' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: LIST_TEST_SUITES, arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: JSON.stringify(suites) },
    ]),
  );
  const args = second.toolCalls?.[0]?.arguments as { mode: string; allowCustom: boolean; options: Array<{ id: string }> };
  assert.equal(args.mode, 'multiple');
  assert.equal(args.allowCustom, true);
  assert.deepEqual(
    args.options.map((o) => o.id),
    ['smoke'],
  );
});

test('after the ToolResult it quotes labels, ids and typed text; a cancel is acknowledged', () => {
  const q = questionFor('approach', 'en');
  const said = replyToAnswer('{"selections":["implement"],"customInput":"tests first","cancelled":false}', q, 'en');
  assert.match(said, /Implement now/);
  assert.match(said, /\(implement\)/);
  assert.match(said, /tests first/);
  assert.match(replyToAnswer('{"selections":[],"customInput":"","cancelled":true}', q, 'zh'), /取消/);
  assert.match(replyToAnswer('{"selections":[],"customInput":"","cancelled":true,"reason":"expired"}', q, 'en'), /timed out/);
  assert.match(
    replyToAnswer('{"selections":[],"customInput":"2030-01-02","cancelled":false}', questionFor('release', 'zh'), 'zh'),
    /2030-01-02/,
  );
});

test('without ask_user among its tools it answers in text and asks nothing', () => {
  const turn = respond({ model: 'm', messages: [{ role: 'user', content: 'plan a release' }] });
  assert.equal(turn.toolCalls, undefined);
  assert.match(turn.text ?? '', /not allowed/);
});

test('a release plan is asked as three questions on one card, and the reply names each answer', () => {
  assert.equal(topicOf('make a release plan'), 'plan');
  assert.equal(topicOf('做一个发布计划'), 'plan');
  const question = questionFor('plan', 'en');
  assert.deepEqual(
    question.questions?.map((q) => [q.id, q.mode, q.required ?? true]),
    [
      ['strategy', 'single', true],
      ['replicas', 'number', true],
      ['note', 'text', false],
    ],
  );
  const content = JSON.stringify({
    answers: [
      { id: 'strategy', selections: ['blue-green'], customInput: '' },
      { id: 'replicas', selections: [], customInput: '4' },
      { id: 'note', selections: [], customInput: '' },
    ],
    cancelled: false,
  });
  assert.equal(
    replyToAnswer(content, question, 'en'),
    'Got it, planning with:\nStrategy: Blue-green switch\nReplicas: 4\nNote: (left blank)',
  );
});
