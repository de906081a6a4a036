/**
 * An MCP tool result (`CallToolResult`) as a loop tool's output, every content block kept: text as text,
 * images and audio with their base64 data and type, embedded resources with their text or bytes, and
 * resource links with their URI. The runtime then passes on what its API carries (images to the Responses
 * API and the AI SDK, a line describing each to Chat Completions) instead of dropping all but text.
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { ToolOutput } from '../tools/loop-tool.js';
import type { ToolContentPart } from '../tools/tool-content.js';

/** One MCP content block as a tool content part; a block of a kind this version does not know becomes a line saying so. */
function partOf(block: ContentBlock): ToolContentPart {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
    case 'audio':
      return { type: block.type, data: block.data, mimeType: block.mimeType };
    case 'resource': {
      const { uri, mimeType } = block.resource;
      const body = 'text' in block.resource ? { text: block.resource.text } : { blob: block.resource.blob };
      return { type: 'resource', uri, ...(mimeType ? { mimeType } : {}), ...body };
    }
    case 'resource_link':
      return {
        type: 'resource_link',
        uri: block.uri,
        name: block.name,
        ...(block.title ? { title: block.title } : {}),
        ...(block.description ? { description: block.description } : {}),
        ...(block.mimeType ? { mimeType: block.mimeType } : {}),
      };
    default:
      return { type: 'text', text: `[${String((block as { type?: unknown }).type)} content]` };
  }
}

/**
 * `CallToolResult` → `ToolOutput`: text-only results stay one string (blocks joined by newlines, as before);
 * anything else keeps its parts. With no content blocks, `structuredContent` is the result as JSON text.
 * `isError` carries over.
 */
export function toolOutputOf(result: CallToolResult): ToolOutput {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const isError = result.isError === true;
  if (blocks.length === 0 && result.structuredContent !== undefined) {
    return { content: JSON.stringify(result.structuredContent), isError };
  }
  const parts = blocks.map(partOf);
  if (parts.every((p) => p.type === 'text')) return { content: parts.map((p) => (p as { text: string }).text).join('\n'), isError };
  return { content: parts, isError };
}
