/**
 * What the card takes as `request`, and one question of it as the card draws and checks it. Types only:
 * the helpers that read requests (read-answer.ts) and build their fields (answer-fields.ts) both use them.
 */
import type { FormQuestion, PendingInteraction, UserInputRequired } from '../plugin/contract/schema.js';

/**
 * What the card accepts as `request`: the `user_input_required` event data, or the pending object of
 * `GET /api/interactions/pending` (which adds `status`). `resumable` and `expiresAt` may be absent in
 * hand-made requests; absent `resumable` counts as resumable.
 */
export type AskUserRequest = Omit<UserInputRequired, 'sessionId' | 'expiresAt' | 'resumable'> & {
  sessionId?: string;
  expiresAt?: string;
  resumable?: boolean;
  status?: PendingInteraction['status'];
};

/**
 * One question as the card draws and checks it: a §9.2 question, or the request itself on a card of one.
 * `required` is false only for a §9.2 question the model marked optional.
 */
export type Question = Omit<FormQuestion, 'id' | 'mode' | 'required'> & { id?: string; mode: string; required?: boolean };
