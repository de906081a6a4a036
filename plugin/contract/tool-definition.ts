/**
 * The `ask_user` tool as the model sees it (docs/protocol.md §1), generated from the zod schema, plus the
 * fail-closed fallback for runtimes without an interactive coordinator.
 */
import { z } from 'zod';
import { askUserArgsSchema } from './schema.js';

export const ASK_USER_TOOL_NAME = 'ask_user';

export const ASK_USER_DESCRIPTIONS = {
  zh: '当任务缺少必要信息时发起结构化追问。支持 single、multiple、text、number、date、directory、toggle；收到用户结果后继续任务。答案必须落在某个范围、长度或数量内时给出边界（min、max、step、minLength、maxLength、minSelections、maxSelections）；有合理的建议值时用 default 预填，用户仍会确认后提交。几个相关问题要一起决定时，用 questions 一次问 1–4 个（每个带 id、简短 header 和自己的 mode），不要连续多次调用。绝不要用它索取密码、密钥、令牌或其他机密。',
  en: 'Ask the user a structured question when the task lacks required information. Supports single, multiple, text, number, date, directory, toggle; the task continues once the user answers. Give bounds (min, max, step, minLength, maxLength, minSelections, maxSelections) when the answer must fall within a range, length or count, and a default when there is a sensible suggestion; the user still confirms and submits it. When several related questions decide one step, ask 1–4 of them at once with questions (each with an id, a short header and its own mode) instead of calling again and again. Never use it to ask for passwords, keys, tokens or other secrets.',
} as const;
export type ToolLocale = keyof typeof ASK_USER_DESCRIPTIONS;

let cachedParameters: Record<string, unknown> | undefined;

/** JSON Schema of the arguments; derived once from `askUserArgsSchema`. */
export function askUserParameters(): Record<string, unknown> {
  if (!cachedParameters) {
    const schema = z.toJSONSchema(askUserArgsSchema, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
    delete schema.$schema;
    cachedParameters = schema;
  }
  return structuredClone(cachedParameters);
}

/** Keywords a strict-mode function schema may not carry; the server still holds the limits they state. */
const STRICT_UNSUPPORTED = ['minLength', 'maxLength'] as const;

type SchemaNode = Record<string, unknown>;

/**
 * The same schema in the shape strict tool calling (`strict: true`, Chat Completions and Responses) takes:
 * every object closed (`additionalProperties: false`) and listing all its properties as required, each
 * optional one also allowing `null` (which the server reads as absent), and no keyword that strict mode
 * rejects (length limits move into the description).
 */
export function strictParameters(node: SchemaNode = askUserParameters(), optional = false): SchemaNode {
  const out: SchemaNode = { ...node };
  for (const key of STRICT_UNSUPPORTED) {
    if (typeof out[key] === 'number') {
      out.description = `${out.description ? `${String(out.description)} ` : ''}(${key} ${String(out[key])})`;
      delete out[key];
    }
  }
  if (out.type === 'object' && out.properties) {
    const properties = out.properties as Record<string, SchemaNode>;
    const required = new Set((out.required as string[] | undefined) ?? []);
    out.properties = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, strictParameters(v, !required.has(k))]));
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  if (out.items) out.items = strictParameters(out.items as SchemaNode);
  if (Array.isArray(out.anyOf)) out.anyOf = (out.anyOf as SchemaNode[]).map((n) => strictParameters(n));
  if (!optional) return out;
  if (Array.isArray(out.anyOf)) return { ...out, anyOf: [...(out.anyOf as SchemaNode[]), { type: 'null' }] };
  const types = Array.isArray(out.type) ? out.type : [out.type];
  return { ...out, type: [...types, 'null'], ...(Array.isArray(out.enum) ? { enum: [...out.enum, null] } : {}) };
}

/** Chat Completions `tools[]` entry. */
export function askUserChatTool(locale: ToolLocale = 'zh') {
  return {
    type: 'function' as const,
    function: { name: ASK_USER_TOOL_NAME, description: ASK_USER_DESCRIPTIONS[locale], parameters: askUserParameters() },
  };
}

/** Responses API `tools[]` entry, in strict mode (the server reads its `null`s as absent fields). */
export function askUserResponsesTool(locale: ToolLocale = 'zh') {
  return {
    type: 'function' as const,
    name: ASK_USER_TOOL_NAME,
    description: ASK_USER_DESCRIPTIONS[locale],
    parameters: strictParameters(),
    strict: true,
  };
}

export interface FallbackToolResult {
  content: Array<{ type: 'text'; text: string }>;
  details: Record<string, never>;
  is_error: true;
}

/** What a CLI or batch runtime returns for `ask_user`: an explicit error, never a made-up answer. */
export function askUserFallback(_args?: unknown): FallbackToolResult {
  return { content: [{ type: 'text', text: 'ask_user 需要在 Web 交互界面中完成。' }], details: {}, is_error: true };
}
