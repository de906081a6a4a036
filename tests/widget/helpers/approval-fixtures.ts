/**
 * An approval card (§12) as the server sends it: three calls — a plain one, an editable one with a flat
 * schema that may be approved for the session, and an editable one whose schema needs JSON text.
 */
import type { AskUserCard, AskUserRequest } from '../../../widget/ask-user-card.js';
import { request } from './card-fixtures.js';
import { until } from './expect.js';

export const LONG = 'line of a long log\n'.repeat(20);

export const approval = (o: Partial<AskUserRequest> = {}): AskUserRequest =>
  request({
    mode: 'approval',
    title: '允许 3 个操作？',
    approvals: [
      {
        toolCallId: 'call_a',
        tool: 'delete_file',
        title: 'Delete build/',
        arguments: { path: 'build/', 'odd key <b>': '<img src=x onerror=alert(1)>', token: '[redacted]', log: LONG },
        editable: false,
        allowAlways: false,
      },
      {
        toolCallId: 'call_b',
        tool: 'git_push',
        title: 'Push to origin',
        arguments: { branch: 'main', force: false },
        editable: true,
        allowAlways: true,
        schema: {
          type: 'object',
          properties: { branch: { type: 'string', pattern: '^[a-z-]+$' }, force: { type: 'boolean' } },
          required: ['branch'],
        },
      },
      {
        toolCallId: 'call_c',
        tool: 'deploy',
        title: 'Deploy',
        arguments: { targets: [{ name: 'eu', replicas: 2 }, 'us'], options: { nested: { deep: true } }, empty: [] },
        editable: true,
        allowAlways: false,
        schema: {
          type: 'object',
          properties: { targets: { type: 'array' }, options: { type: 'object' }, empty: { type: 'array', maxItems: 0 } },
        },
      },
    ],
    ...o,
  } as Partial<AskUserRequest> & Pick<AskUserRequest, 'mode'>);

/** Waits until the approval chunk drew the calls. */
export const drawn = (card: AskUserCard) => until(() => card.shadowRoot!.querySelector('.call'), 'the approval card drawn');
