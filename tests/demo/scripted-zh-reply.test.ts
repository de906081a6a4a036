/** The offline assistant's zh replies quote labels in 「」 with no space before them (CJK punctuation needs none). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { questionFor, replyToAnswer } from '../../demo/scripted-model/index.js';

test('zh replies after a choice read "你选了「…」", never "你选了 「…」"', () => {
  const tests = questionFor('tests', 'zh');
  const approach = questionFor('approach', 'zh');
  const first = (q: typeof tests) => q.options![0]!;
  const multiple = replyToAnswer(JSON.stringify({ selections: [first(tests).id], customInput: '', cancelled: false }), tests, 'zh');
  const single = replyToAnswer(JSON.stringify({ selections: [first(approach).id], customInput: '', cancelled: false }), approach, 'zh');
  assert.ok(multiple.includes(`你选了「${first(tests).label}」`), multiple);
  assert.ok(single.includes(`你选择了「${first(approach).label}」`), single);
  for (const said of [multiple, single]) assert.doesNotMatch(said, / 「/);
});
