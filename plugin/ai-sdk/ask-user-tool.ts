/**
 * `ask_user` as an AI SDK tool. It has no `execute`: the AI SDK stops the step at the call and the
 * runtime hands it to the coordinator, so the answer comes from the user, never from a function.
 */
import { jsonSchema, tool, type JSONSchema7, type Tool } from 'ai';
import { ASK_USER_DESCRIPTIONS, askUserParameters, type ToolLocale } from '../contract/tool-definition.js';

/**
 * The model sees the contract's own JSON Schema (the one `askUserChatTool` sends), generated from
 * `askUserArgsSchema`. No `validate` is given on purpose: the coordinator is the one validator, so a bad
 * call gets the contract's is_error ToolResult (and `null` fields read as absent) instead of an AI SDK
 * message the contract does not know.
 */
export function askUserTool(locale: ToolLocale = 'zh'): Tool<unknown, never> {
  return tool<unknown, never, Record<string, never>>({
    description: ASK_USER_DESCRIPTIONS[locale],
    inputSchema: jsonSchema<unknown>(() => askUserParameters() as JSONSchema7),
  });
}
