/**
 * toolOutputOf: an MCP CallToolResult becomes a loop tool's output with every content block kept, so an
 * image (the "everything" server's get-tiny-image) no longer arrives as nothing; a text-only result stays
 * one string as before, and structuredContent stands in when there are no blocks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toolOutputOf } from '../../../plugin/mcp/tool-output.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** Parsed by the SDK's own schema, as a client's callTool result is. */
const result = (raw: unknown): CallToolResult => CallToolResultSchema.parse(raw);

test('text blocks stay one string, joined by newlines; isError carries over', () => {
  assert.deepEqual(
    toolOutputOf(
      result({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ),
    { content: 'a\nb', isError: false },
  );
  assert.deepEqual(toolOutputOf(result({ content: [{ type: 'text', text: 'nope' }], isError: true })), { content: 'nope', isError: true });
});

test('image, audio, embedded resources and resource links are kept as parts, in order', () => {
  const out = toolOutputOf(
    result({
      content: [
        { type: 'text', text: 'This is a tiny image:' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'test://static/resource/1', mimeType: 'text/plain', text: 'Resource 1' } },
        { type: 'resource', resource: { uri: 'test://static/resource/2', mimeType: 'application/octet-stream', blob: 'AAEC' } },
        { type: 'resource_link', uri: 'test://static/resource/3', name: 'Resource 3', description: 'the third', mimeType: 'text/plain' },
      ],
    }),
  );
  assert.deepEqual(out, {
    isError: false,
    content: [
      { type: 'text', text: 'This is a tiny image:' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      { type: 'resource', uri: 'test://static/resource/1', mimeType: 'text/plain', text: 'Resource 1' },
      { type: 'resource', uri: 'test://static/resource/2', mimeType: 'application/octet-stream', blob: 'AAEC' },
      { type: 'resource_link', uri: 'test://static/resource/3', name: 'Resource 3', description: 'the third', mimeType: 'text/plain' },
    ],
  });
});

test('no content blocks: structuredContent as JSON text; nothing at all: an empty string', () => {
  assert.deepEqual(toolOutputOf(result({ content: [], structuredContent: { temperature: 21.5 } })), {
    content: '{"temperature":21.5}',
    isError: false,
  });
  assert.deepEqual(toolOutputOf(result({ content: [] })), { content: '', isError: false });
});
