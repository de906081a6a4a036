/**
 * fromLoopTools with a result that has more than text: an image reaches the model as an AI SDK content
 * part (file data with its media type), and with `media: 'text'` (for Chat Completions providers) as a line
 * saying what it was; the `tool_result` event and the stored history never echo base64 to the page.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../../plugin/index.js';
import { fromLoopTools } from '../../../plugin/ai-sdk/index.js';
import type { LoopTool } from '../../../plugin/loop/index.js';
import { mockModel, toolResultsOf } from './mock-model.js';
import { dataOf, startAiServer } from './support.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const tinyImage: LoopTool = {
  name: 'get_tiny_image',
  description: 'a tiny image',
  parameters: { type: 'object', properties: {} },
  run: () => ({
    content: [
      { type: 'text', text: 'Here it is:' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'resource_link', uri: 'https://example.com/big.png', name: 'big.png' },
    ],
  }),
};

async function run(t: { after(fn: () => Promise<void>): void }, media?: 'parts' | 'text') {
  const store = await openStore('memory');
  const mock = mockModel([{ toolCalls: [{ id: 'c-img', name: 'get_tiny_image', arguments: {} }] }, { text: 'seen' }]);
  const server = await startAiServer(store, { model: mock.model, tools: fromLoopTools([tinyImage], media ? { media } : {}) });
  t.after(async () => (await server.close(), await store.close()));
  const frames = await server.chat(`s-${media ?? 'default'}`, 'show me');
  // As stored and sent: the AI SDK's prompt spells absent fields as undefined.
  return { frames, output: JSON.parse(JSON.stringify(toolResultsOf(mock.prompts[1]!)[0]!.output)) };
}

const described = 'Here it is:\n[image image/png, 70 B]\n[resource link https://example.com/big.png "big.png"]';

test('the image reaches the model as a file content part; the event describes it', async (t) => {
  const { frames, output } = await run(t);
  assert.deepEqual(output, {
    type: 'content',
    value: [
      { type: 'text', text: 'Here it is:' },
      { type: 'file', data: { type: 'data', data: PNG }, mediaType: 'image/png' },
      { type: 'text', text: '[resource link https://example.com/big.png "big.png"]' },
    ],
  });
  assert.deepEqual(
    dataOf(frames, 'tool_result').map((r) => [r.toolCallId, r.content, r.isError]),
    [['c-img', described, false]],
  );
});

test("media: 'text' gives a Chat Completions provider one line per part instead of JSON with base64", async (t) => {
  const { output } = await run(t, 'text');
  assert.deepEqual(output, { type: 'text', value: described });
});
