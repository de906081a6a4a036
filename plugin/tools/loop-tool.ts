/**
 * The tool contract a host's tools implement, whichever runtime runs them: the plugin loop's registry
 * (plugin/loop/tool-registry.ts) or the AI SDK's ToolSet (`fromLoopTools`, plugin/ai-sdk/loop-tools.ts).
 * Both word a failure the same way, so the model reads the same result on either.
 */
import type { SseSink } from '../core/host.js';
import type { ToolContentPart } from './tool-content.js';
import type { ApprovalPolicy } from './approval-policy.js';

export interface ToolRunContext {
  sessionId: string;
  /** Aborted when the chat stream's client leaves. */
  signal: AbortSignal;
  /** The turn's chat stream, for a tool that asks the user itself (an MCP elicitation, say); the plugin loop always gives it. */
  sse?: SseSink;
}

/** A host's tool; the fields of `ApprovalPolicy` say whether a call waits for the user's approval (§12). */
export interface LoopTool extends ApprovalPolicy {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  /** A string result, or `{ content, isError }`: a failure the model should see as such, or content parts (images, …). */
  run(args: Record<string, unknown>, ctx: ToolRunContext): Promise<string | ToolOutput> | string | ToolOutput;
}

export interface ToolOutput {
  /**
   * The result as text, or as content parts (text, image, audio, resource, resource link, as an MCP tool
   * result has them). Each runtime passes on what its API carries and describes the rest in text.
   */
  content: string | ToolContentPart[];
  isError?: boolean;
}

/** Plain text: the model reads it as it is, with no JSON escaping to see through. */
export const errorText = (message: string) => `Error: ${message}`;
