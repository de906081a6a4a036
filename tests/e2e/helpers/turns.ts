/** Scripted model turns the cases share: an `ask_user` call with a fixed id, and a reply that echoes what arrived. */
import type { ChatRequestBody, ScriptedTurn, TurnScript } from '../../helpers/scripted-model.js';

export interface AskArgs {
  title: string;
  mode: 'single' | 'multiple' | 'text' | 'number' | 'date' | 'directory' | 'toggle';
  description?: string;
  options?: Array<{ id: string; label: string; description?: string; recommended?: boolean }>;
  allowCustom?: boolean;
  submitLabel?: string;
}

export const ask = (id: string, args: AskArgs, text = '我需要先确认一件事。'): ScriptedTurn => ({
  text,
  toolCalls: [{ id, name: 'ask_user', arguments: args as unknown as Record<string, unknown> }],
});

/** The last tool message's content, as the model received it. */
export const lastToolContent = (body: ChatRequestBody): string => {
  const last = [...body.messages].reverse().find((m) => m.role === 'tool');
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? null);
};

/** Replies `模型收到：<tool content>`, so the page shows what the model got. */
export const echo =
  (prefix = '模型收到'): TurnScript =>
  (body) => ({ text: `${prefix}：${lastToolContent(body)}` });

export const APPROACH: AskArgs = {
  title: '请选择执行方式',
  description: '不同方式会影响接下来的工具权限。',
  mode: 'single',
  options: [
    { id: 'safe', label: '先分析', description: '只阅读并给出方案', recommended: true },
    { id: 'implement', label: '直接实现', description: '开始修改工作区' },
  ],
  submitLabel: '继续',
};
