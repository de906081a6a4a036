/**
 * A tool result with more than text: content parts as an MCP tool result has them (text, image, audio, an
 * embedded resource, a resource link), and each part as a line that says what was there (`[image
 * image/png, 1.2 KB]`) for whatever carries text only: Chat Completions tool messages, the `tool_result`
 * event. Each runtime maps the parts its API carries itself: the loop's Responses rounds
 * (plugin/loop/responses-round.ts), the AI SDK's tool results (plugin/ai-sdk/loop-tools.ts).
 */
/** One piece of a tool result. Binary data is base64, as MCP sends it. */
export type ToolContentPart =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string }
  /** An embedded resource: its text, or its bytes as base64 `blob`. */
  | { type: 'resource'; uri: string; mimeType?: string; text?: string; blob?: string }
  /** A link to a resource the model may ask for; nothing of it is fetched. */
  | { type: 'resource_link'; uri: string; name?: string; title?: string; description?: string; mimeType?: string };

/** Bytes a base64 string stands for, without decoding it. */
export function base64Bytes(data: string): number {
  const trimmed = data.replace(/\s/g, '');
  const padding = trimmed.endsWith('==') ? 2 : trimmed.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((trimmed.length * 3) / 4) - padding);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** One part as text: text as it is, anything else as a bracketed line saying what it was. */
export function describePart(part: ToolContentPart): string {
  switch (part.type) {
    case 'text':
      return str(part.text);
    case 'image':
    case 'audio':
      return `[${part.type} ${str(part.mimeType) || 'unknown type'}, ${formatBytes(base64Bytes(str(part.data)))}]`;
    case 'resource': {
      const head = `[resource ${str(part.uri)}${part.mimeType ? ` ${part.mimeType}` : ''}`;
      if (typeof part.text === 'string') return `${head}]\n${part.text}`;
      return `${head}, ${formatBytes(base64Bytes(str(part.blob)))}]`;
    }
    case 'resource_link': {
      const name = part.title || part.name;
      const about = [name ? JSON.stringify(name) : '', part.mimeType ?? ''].filter(Boolean).join(' ');
      return `[resource link ${str(part.uri)}${about ? ` ${about}` : ''}${part.description ? `: ${part.description}` : ''}]`;
    }
    default:
      // A part of a kind this kit does not know (a newer MCP type): say so rather than drop it silently.
      return `[${String((part as { type?: unknown }).type)} content]`;
  }
}

/** The whole result as text, one part per line: what Chat Completions and the `tool_result` event carry. */
export const describeToolContent = (parts: readonly ToolContentPart[]): string => parts.map(describePart).join('\n');

/**
 * A tool's content as a runtime keeps it: the text, and the parts only when there is more than text (a
 * text-only result stays a plain string, as before).
 */
export function toolResultOf(content: string | readonly ToolContentPart[]): { content: string; parts?: ToolContentPart[] } {
  if (typeof content === 'string') return { content };
  if (!Array.isArray(content)) return { content: String(content) };
  const parts = content.filter((p): p is ToolContentPart => p !== null && typeof p === 'object');
  const text = describeToolContent(parts);
  return parts.every((p) => p.type === 'text') ? { content: text } : { content: text, parts };
}
