/** Joining streamed tool-call deltas: by index, in arrival order, whatever the chunk boundaries. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ToolCallAccumulator } from '../../../plugin/loop/tool-call-accumulator.js';
import { parseToolArguments } from '../../../plugin/loop/tool-registry.js';
import { withUsableIds } from '../../../plugin/loop/tool-call-ids.js';

test('interleaved deltas of parallel calls are joined per index', () => {
  const acc = new ToolCallAccumulator();
  acc.add([{ index: 1, id: 'call_b', type: 'function', function: { name: 'b', arguments: '' } }]);
  acc.add([{ index: 0, id: 'call_a', type: 'function', function: { name: 'a', arguments: '{"x"' } }]);
  acc.add([
    { index: 1, function: { arguments: '{"y":' } },
    { index: 0, function: { arguments: ':1}' } },
  ]);
  acc.add([{ index: 1, function: { arguments: '2}' } }]);
  assert.deepEqual(acc.finish(), [
    { id: 'call_a', name: 'a', arguments: '{"x":1}' },
    { id: 'call_b', name: 'b', arguments: '{"y":2}' },
  ]);
});

test('a provider that sends no id gets one generated, stable from then on', () => {
  const acc = new ToolCallAccumulator();
  acc.add([{ index: 0, function: { name: 'a', arguments: '{}' } }]);
  const [call] = acc.finish();
  assert.match(call!.id, /^call_[A-Za-z0-9_-]{16}$/);
});

test('any split of the argument text reassembles it exactly', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme' }), fc.array(fc.nat(), { maxLength: 8 }), (args, cuts) => {
      const points = [...new Set(cuts.map((c) => c % (args.length + 1)))].sort((a, b) => a - b);
      const pieces: string[] = [];
      let from = 0;
      for (const p of [...points, args.length]) {
        pieces.push(args.slice(from, p));
        from = p;
      }
      const acc = new ToolCallAccumulator();
      acc.add([{ index: 0, id: 'c', function: { name: 'n' } }]);
      for (const p of pieces) acc.add([{ index: 0, function: { arguments: p } }]);
      assert.equal(acc.finish()[0]!.arguments, args);
    }),
  );
});

test('tool arguments must be one JSON object; empty means none', () => {
  assert.deepEqual(parseToolArguments(''), { ok: true, args: {} });
  assert.deepEqual(parseToolArguments('{"a":1}'), { ok: true, args: { a: 1 } });
  const bad = parseToolArguments('{"a":');
  assert.equal(bad.ok, false);
  assert.equal(parseToolArguments('[1]').ok, false);
  assert.equal(parseToolArguments('null').ok, false);
});

test('a new id on an index in use starts a new call; arguments sent as an object are serialized', () => {
  const acc = new ToolCallAccumulator();
  acc.add([{ index: 0, id: 'a', function: { name: 'x', arguments: '{}' } }]);
  acc.add([{ index: 0, id: 'b', function: { name: 'y', arguments: { q: 1 } } }]);
  assert.deepEqual(acc.finish(), [
    { id: 'a', name: 'x', arguments: '{}' },
    { id: 'b', name: 'y', arguments: '{"q":1}' },
  ]);
});

test('without ids, a second name after complete arguments is a second call; a repeated name mid-call is not', () => {
  const acc = new ToolCallAccumulator();
  acc.add([{ function: { name: 'x', arguments: '{"a":' } }]);
  acc.add([{ function: { name: 'x', arguments: '1}' } }]);
  acc.add([{ function: { name: 'y', arguments: '{}' } }]);
  assert.deepEqual(
    acc.finish().map((c) => [c.name, c.arguments]),
    [
      ['x', '{"a":1}'],
      ['y', '{}'],
    ],
  );
});

test('ids that are empty, repeated in a turn or already in the history are replaced, in order', () => {
  const history = [{ role: 'tool' as const, tool_call_id: 'old', content: 'r' }];
  const calls = [
    { id: 'old', name: 'a', arguments: '' },
    { id: 'same', name: 'b', arguments: '' },
    { id: 'same', name: 'c', arguments: '' },
    { id: ' ', name: 'd', arguments: '' },
  ];
  const out = withUsableIds(calls, history);
  assert.deepEqual(
    out.map((c) => c.name),
    ['a', 'b', 'c', 'd'],
  );
  assert.equal(out[1]!.id, 'same');
  assert.equal(new Set([...out.map((c) => c.id), 'old']).size, 5, 'all distinct and none reuses the history');
});
