/**
 * A card of three questions (docs/protocol.md §9.2) as the server sends it, and a fake `fetch` that
 * records the exact continue bodies the card posts and answers with real Responses.
 */
import type { AskUserRequest } from '../../../widget/read-answer.js';
import { OPTIONS, request } from './card-fixtures.js';
import { frame, jsonResponse, streamResponse } from './sse-fixtures.js';

/** Choice with a default, a bounded number with a default, an optional bounded text. */
export const form = (o: Partial<AskUserRequest> = {}): AskUserRequest =>
  request({
    mode: 'form',
    title: '开始之前确认三件事',
    description: '回答后助手继续执行。',
    submitLabel: '开始',
    questions: [
      { id: 'plan', header: '方式', title: '怎么做？', mode: 'single', options: OPTIONS, default: 'safe', required: true },
      {
        id: 'workers',
        header: '并发',
        title: '并发数',
        description: '同时运行的任务数',
        mode: 'number',
        min: 1,
        max: 8,
        step: 1,
        default: '4',
        placeholder: '1–8',
        required: true,
      },
      { id: 'note', header: '备注', title: '补充说明', mode: 'text', maxLength: 200, placeholder: '可不填', required: false },
    ],
    ...o,
  });

export interface Posted {
  url: string;
  body: Record<string, unknown>;
}

/** An accepted continue: the run resumes and ends. */
export const accepted = () =>
  streamResponse([
    frame('tool_result', { toolCallId: 't', name: 'ask_user', content: '{}', isError: false }),
    frame('done', { reason: 'completed' }),
  ]).response;

export const refused = (status: number, error: Record<string, unknown>) => () => jsonResponse({ error }, status);

/** A fetch that records each body and answers with `respond` (accepted by default). */
export function recordingFetch(respond: () => Response | Promise<Response> = accepted) {
  const posted: Posted[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    posted.push({ url: String(input), body: JSON.parse(String(init?.body)) });
    return respond();
  }) as typeof globalThis.fetch;
  return { fetch, posted };
}
