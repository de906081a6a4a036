/**
 * A scripted model that serves many sessions at once without a shared queue: a user message
 * `ask <toolCallId> [form]` (a key of QUESTIONS) makes it call ask_user with that tool call id, and
 * `call <toolCallId> <tool>` makes it call that tool with `{ branch: <toolCallId> }` (the crash server's
 * approval tools); anything else gets a short text reply. Tests then know every toolCallId in advance,
 * even for runs whose stream they never read.
 */
import { startScriptedModel, type ChatRequestBody, type ScriptedModel, type ScriptedTurn } from '../../helpers/scripted-model.js';
import { lastUserText } from './deliveries.js';

export const QUESTIONS = {
  single: {
    title: 'How should I proceed?',
    mode: 'single',
    allowCustom: true,
    options: [
      { id: 'safe', label: 'Analyse first' },
      { id: 'implement', label: 'Implement now' },
    ],
  },
  text: { title: 'Describe the change', mode: 'text' },
  strict: {
    title: 'Which one?',
    mode: 'single',
    options: [
      { id: 'safe', label: 'Analyse first' },
      { id: 'implement', label: 'Implement now' },
    ],
  },
  number: { title: 'How many workers?', mode: 'number' },
} as const;

export function askingTurn(body: ChatRequestBody): ScriptedTurn {
  const last = body.messages.at(-1);
  const text = last?.role === 'user' ? lastUserText(body) : undefined;
  const m = text ? /^ask (\S+)(?: (\w+))?$/.exec(text) : null;
  const form = m ? QUESTIONS[(m[2] ?? 'single') as keyof typeof QUESTIONS] : undefined;
  if (m && form) return { toolCalls: [{ id: m[1]!, name: 'ask_user', arguments: form }] };
  const tool = text ? /^call (\S+) (\w+)$/.exec(text) : null;
  if (tool) return { toolCalls: [{ id: tool[1]!, name: tool[2]!, arguments: { branch: tool[1]! } }] };
  return { text: last?.role === 'tool' ? 'continuing with your answer' : 'ok' };
}

export const startAskingModel = (): Promise<ScriptedModel> => startScriptedModel({ fallback: askingTurn });
