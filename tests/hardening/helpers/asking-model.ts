/**
 * A scripted model that serves many sessions at once without a shared queue: a user message
 * `ask <toolCallId> [mode]` makes it call ask_user with that tool call id; anything else gets a short
 * text reply. Tests then know every toolCallId in advance, even for runs whose stream they never read.
 */
import { startScriptedModel, type ChatRequestBody, type ScriptedModel, type ScriptedTurn } from '../../helpers/scripted-model.js';
import { lastUserText } from './deliveries.js';

export const QUESTIONS = {
  single: { title: 'How should I proceed?', mode: 'single', allowCustom: true, options: [{ id: 'safe', label: 'Analyse first' }, { id: 'implement', label: 'Implement now' }] },
  text: { title: 'Describe the change', mode: 'text' },
} as const;

export function askingTurn(body: ChatRequestBody): ScriptedTurn {
  const last = body.messages.at(-1);
  const text = last?.role === 'user' ? lastUserText(body) : undefined;
  const m = text ? /^ask (\S+)(?: (single|text))?$/.exec(text) : null;
  if (m) return { toolCalls: [{ id: m[1]!, name: 'ask_user', arguments: QUESTIONS[(m[2] as keyof typeof QUESTIONS) ?? 'single'] }] };
  return { text: last?.role === 'tool' ? 'continuing with your answer' : 'ok' };
}

export const startAskingModel = (): Promise<ScriptedModel> => startScriptedModel({ fallback: askingTurn });
