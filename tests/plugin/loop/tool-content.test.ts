/**
 * A loop tool's result with more than text (an MCP tool's image, audio, resource, resource link) reaches
 * the model as far as its API carries it: the Responses API gets the image itself as an `input_image` in
 * the `function_call_output`; Chat Completions and the `tool_result` event get a line saying what was there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../../plugin/store/index.js';
import type { LoopTool, ToolOutput } from '../../../plugin/loop/index.js';
import { describeToolContent, toolResultOf } from '../../../plugin/tools/tool-content.js';
import { responsesToolOutput } from '../../../plugin/loop/responses-round.js';
import { startScriptedModel } from '../../helpers/scripted-model.js';
import { startLoopServer, frame } from './loop-server.js';

/** A 1x1 PNG, as MCP's "everything" server's get-tiny-image sends a small one. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const WAV = Buffer.alloc(1536).toString('base64');

const rich: ToolOutput = {
  content: [
    { type: 'text', text: 'Here is the image:' },
    { type: 'image', data: PNG, mimeType: 'image/png' },
    { type: 'audio', data: WAV, mimeType: 'audio/wav' },
    { type: 'resource', uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'remember the milk' },
    { type: 'resource_link', uri: 'file:///docs/readme.md', name: 'readme.md', title: 'README', mimeType: 'text/markdown' },
  ],
};
const EXPECTED_TEXT = [
  'Here is the image:',
  '[image image/png, 70 B]',
  '[audio audio/wav, 1.5 KB]',
  '[resource file:///notes.txt text/plain]\nremember the milk',
  '[resource link file:///docs/readme.md "README" text/markdown]',
].join('\n');

const tinyImage: LoopTool = {
  name: 'get_tiny_image',
  description: 'a tiny image',
  parameters: { type: 'object', properties: {} },
  run: () => rich,
};

async function runWith(api: 'chat' | 'responses', t: { after(fn: () => Promise<void>): void }) {
  const model = await startScriptedModel({
    turns: [{ toolCalls: [{ id: 'call_img', name: 'get_tiny_image', arguments: {} }] }],
    fallback: { text: 'I see it.' },
  });
  const store = await openStore('memory');
  const server = await startLoopServer(store, model.baseURL, { api, tools: [tinyImage] });
  t.after(async () => (await server.close(), await model.close(), await store.close()));
  const frames = await server.chat(`s-${api}`, 'show me');
  assert.deepEqual(frame(frames, 'done'), { reason: 'completed' });
  return { model, frames };
}

test('Responses: the image goes to the model as input_image, text and the rest as input_text, in order', async (t) => {
  const { model, frames } = await runWith('responses', t);
  const output = (model.requests[1]!.input as Array<Record<string, any>>).find((i) => i.type === 'function_call_output')!.output;
  assert.deepEqual(output, [
    { type: 'input_text', text: 'Here is the image:' },
    { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
    { type: 'input_text', text: '[audio audio/wav, 1.5 KB]' },
    { type: 'input_text', text: '[resource file:///notes.txt text/plain]\nremember the milk' },
    { type: 'input_text', text: '[resource link file:///docs/readme.md "README" text/markdown]' },
  ]);
  assert.equal(frame(frames, 'tool_result').content, EXPECTED_TEXT, 'the event says what was there, no base64');
});

test('Chat Completions: the tool message says what was there, in text only, and carries no extra field', async (t) => {
  const { model, frames } = await runWith('chat', t);
  const tool = model.requests[1]!.messages.find((m) => m.role === 'tool')!;
  assert.deepEqual(tool, { role: 'tool', tool_call_id: 'call_img', content: EXPECTED_TEXT });
  assert.equal(frame(frames, 'tool_result').content, EXPECTED_TEXT);
});

test('a text-only result stays a plain string; an embedded image or PDF resource is sent as the file itself', () => {
  assert.deepEqual(toolResultOf('plain'), { content: 'plain' });
  assert.deepEqual(
    toolResultOf([
      { type: 'text', text: 'a' },
      { type: 'text', text: 'b' },
    ]),
    { content: 'a\nb' },
  );
  assert.deepEqual(
    responsesToolOutput([
      { type: 'resource', uri: 'file:///shot.png', mimeType: 'image/png', blob: PNG },
      { type: 'resource', uri: 'file:///a%20b.pdf', mimeType: 'application/pdf', blob: 'JVBERi0=' },
      { type: 'resource', uri: 'file:///x.bin', mimeType: 'application/octet-stream', blob: 'AAAA' },
    ]),
    [
      { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
      { type: 'input_file', filename: 'a b.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' },
      { type: 'input_text', text: '[resource file:///x.bin application/octet-stream, 3 B]' },
    ],
  );
  assert.equal(
    describeToolContent([{ type: 'image', data: Buffer.alloc(3 * 1024 * 1024).toString('base64'), mimeType: 'image/jpeg' }]),
    '[image image/jpeg, 3.0 MB]',
  );
});
