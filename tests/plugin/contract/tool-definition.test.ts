import { test } from 'node:test';
import assert from 'node:assert/strict';
import { askUserChatTool, askUserFallback, askUserResponsesTool, ASK_USER_DESCRIPTIONS } from '../../../plugin/contract/tool-definition.js';
import { askUserArgsSchema } from '../../../plugin/contract/schema.js';
import { answerToolResultText, closedToolResultText } from '../../../plugin/contract/tool-result.js';

test('the Chat Completions tool carries the zh description and a JSON Schema derived from zod', () => {
  const tool = askUserChatTool();
  assert.equal(tool.function.name, 'ask_user');
  assert.equal(tool.function.description, ASK_USER_DESCRIPTIONS.zh);
  const p = tool.function.parameters as { required: string[]; properties: Record<string, { enum?: string[] }> };
  assert.deepEqual([...p.required].sort(), ['title'], 'mode, or questions (§9.2)');
  assert.deepEqual(p.properties.mode?.enum, ['single', 'multiple', 'text', 'number', 'date', 'directory', 'toggle']);
  assert.equal(askUserResponsesTool('en').description, ASK_USER_DESCRIPTIONS.en);
});

test('the descriptions say when to give bounds and defaults, and never to ask for secrets', () => {
  for (const word of ['min', 'max', 'step', 'minLength', 'maxLength', 'minSelections', 'maxSelections', 'default']) {
    assert.ok(ASK_USER_DESCRIPTIONS.zh.includes(word), `zh names ${word}`);
    assert.ok(ASK_USER_DESCRIPTIONS.en.includes(word), `en names ${word}`);
  }
  assert.match(ASK_USER_DESCRIPTIONS.zh, /绝不要.*密码、密钥/);
  assert.match(ASK_USER_DESCRIPTIONS.en, /Never use it to ask for passwords, keys, tokens or other secrets/);
});

test('argument rules of contract §1', () => {
  const ok = (a: unknown) => askUserArgsSchema.safeParse(a).success;
  assert.ok(ok({ title: 'Q', mode: 'single', options: [{ id: 'a', label: 'A' }] }));
  assert.ok(ok({ title: 'Q', mode: 'text' }));
  assert.ok(!ok({ title: ' ', mode: 'text' }));
  assert.ok(!ok({ title: 'Q', mode: 'single' }));
  assert.ok(!ok({ title: 'Q', mode: 'single', options: [] }));
  assert.ok(
    !ok({
      title: 'Q',
      mode: 'toggle',
      options: [
        { id: 'a', label: 'A' },
        { id: 'a', label: 'B' },
      ],
    }),
  );
  assert.ok(!ok({ title: 'Q', mode: 'multiple', options: Array.from({ length: 51 }, (_, i) => ({ id: `o${i}`, label: 'x' })) }));
  assert.ok(!ok({ title: 'Q', mode: 'voice' }));
});

test('ToolResult content is exact JSON with keys in contract order', () => {
  assert.equal(
    answerToolResultText({ selections: ['safe', '中'], customInput: 'a "b"\n', cancelled: false }),
    '{"selections":["safe","中"],"customInput":"a \\"b\\"\\n","cancelled":false}',
  );
  assert.equal(
    answerToolResultText({ selections: ['x'], customInput: 'y', cancelled: true }),
    '{"selections":[],"customInput":"","cancelled":true}',
  );
  assert.equal(closedToolResultText('expired'), '{"selections":[],"customInput":"","cancelled":true,"reason":"expired"}');
});

test('the fallback fails closed', () => {
  assert.deepEqual(askUserFallback({}), {
    content: [{ type: 'text', text: 'ask_user 需要在 Web 交互界面中完成。' }],
    details: {},
    is_error: true,
  });
});
