/** The names the model sees for several MCP servers' tools (demo/mcp/tool-names.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exposedToolNames, toolNameOf } from '../../../demo/mcp/tool-names.js';

const plain = (maps: Array<Map<string, string>>) => maps.map((m) => Object.fromEntries(m));

test('a name only one server offers stays as it is; a shared one is prefixed on every server offering it', () => {
  assert.deepEqual(
    plain(
      exposedToolNames([
        { server: 'alpha', tools: ['book_meeting', 'only_alpha'] },
        { server: 'beta', tools: ['book_meeting'] },
      ]),
    ),
    [{ book_meeting: 'alpha__book_meeting', only_alpha: 'only_alpha' }, { book_meeting: 'beta__book_meeting' }],
  );
});

test("a host tool's name counts as taken", () => {
  assert.deepEqual(plain(exposedToolNames([{ server: 'ops', tools: ['deploy_preview', 'status'] }], new Set(['deploy_preview']))), [
    { deploy_preview: 'ops__deploy_preview', status: 'status' },
  ]);
});

test('names fit [A-Za-z0-9_-]{1,64}; servers of one name are told apart by a suffix', () => {
  assert.equal(toolNameOf('files.read/v2'), 'files_read_v2');
  assert.equal(toolNameOf('…'), '_');
  assert.equal(toolNameOf(''), 'tool');
  const maps = exposedToolNames([
    { server: 'My Server', tools: ['x'.repeat(100), 'get.item'] },
    { server: 'My Server', tools: ['get.item'] },
  ]);
  const names = maps.flatMap((m) => [...m.values()]);
  assert.ok(
    names.every((n) => /^[A-Za-z0-9_-]{1,64}$/.test(n)),
    names.join(', '),
  );
  assert.equal(new Set(names).size, names.length, 'all distinct');
  assert.deepEqual([maps[0]!.get('get.item'), maps[1]!.get('get.item')], ['My_Server__get_item', 'My_Server_2__get_item']);
  assert.equal(maps[0]!.get('x'.repeat(100)), 'x'.repeat(64));
});

test('two tools whose names clean up alike are told apart', () => {
  const [m] = exposedToolNames([{ server: 's', tools: ['a.b', 'a_b'] }]);
  assert.deepEqual(Object.fromEntries(m!), { 'a.b': 's__a_b', a_b: 's__a_b_2' });
});
