/**
 * The one source of the wire contract (docs/protocol.md §1–5). The model's JSON Schema, the TypeScript
 * types and every runtime check derive from these zod schemas; nothing restates a shape by hand.
 *
 * Runtime code in the browser must not import this file (it pulls in zod): the widget uses
 * `import type` only, and the dependency-free rules in `answer-rules.ts`.
 */
import { z } from 'zod';
import { LIMITS, MODES, CHOICE_MODES, type Mode } from './limits.js';
import { boundsFields, boundsIssues } from './bounds.js';

export { LIMITS, MODES, CHOICE_MODES };
export type { Mode };

const text = (max: number) => z.string().max(max);
const nonBlank = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => s.trim().length > 0, { message: 'must not be blank' });

export const askUserOptionSchema = z.object({
  id: nonBlank(LIMITS.optionId).describe('稳定提交值 / stable value submitted back'),
  label: nonBlank(LIMITS.optionLabel).describe('展示名称 / display label'),
  description: text(LIMITS.optionDescription).optional().describe('展示说明 / display description'),
  recommended: z.boolean().optional().describe('推荐项 / recommended option'),
});

const askUserArgsObject = z.object({
  title: nonBlank(LIMITS.title).describe('问题标题 / the question'),
  description: text(LIMITS.description).optional().describe('用户需要知道的补充说明 / what the user needs to know'),
  mode: z.enum(MODES).describe('决定前端渲染何种控件 / which control the user gets'),
  options: z
    .array(askUserOptionSchema)
    .max(LIMITS.options)
    .optional()
    .describe('single、multiple、toggle 模式的选项 / options for single, multiple, toggle'),
  allowCustom: z.boolean().optional().describe('是否允许用户填写选项之外的内容 / extra free-text box'),
  submitLabel: text(LIMITS.submitLabel).optional().describe('提交按钮文案 / submit button text'),
  ...boundsFields,
});

/** Tool arguments as the model sends them, with the cross-field rules of docs/protocol.md §1 and §9.1. */
export const askUserArgsSchema = askUserArgsObject.superRefine((args, ctx) => {
  const choice = (CHOICE_MODES as readonly string[]).includes(args.mode);
  if (!choice) {
    for (const issue of boundsIssues(args)) ctx.addIssue({ code: 'custom', path: [issue.path], message: issue.message });
    return;
  }
  const options = args.options ?? [];
  if (options.length < 1) {
    ctx.addIssue({ code: 'custom', path: ['options'], message: `mode "${args.mode}" needs 1..${LIMITS.options} options` });
  }
  const seen = new Set<string>();
  options.forEach((o, i) => {
    if (seen.has(o.id)) {
      ctx.addIssue({ code: 'custom', path: ['options', i, 'id'], message: `duplicate option id ${JSON.stringify(o.id)}` });
    }
    seen.add(o.id);
  });
  // The §9.1 rules need a sound option list (a default names ids, selection bounds count options).
  if (options.length >= 1 && seen.size === options.length) {
    for (const issue of boundsIssues(args)) ctx.addIssue({ code: 'custom', path: [issue.path], message: issue.message });
  }
});

export type AskUserOption = z.infer<typeof askUserOptionSchema>;
export type AskUserArgs = z.infer<typeof askUserArgsSchema>;

/** The form as stored and shown: validated arguments, options dropped for non-choice modes. */
export type AskUserForm = AskUserArgs;

/** `ask_` + 128 random bits, base64url (22 chars). Anything else is rejected before the store is asked. */
export const requestIdSchema = z.string().regex(/^ask_[A-Za-z0-9_-]{22,64}$/, 'must look like ask_<base64url>');
export const sessionIdSchema = z
  .string()
  .min(1)
  .max(LIMITS.sessionId)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

export const userInputRequiredSchema = askUserArgsObject.extend({
  id: requestIdSchema,
  toolCallId: z.string(),
  sessionId: z.string(),
  expiresAt: z.string().describe('ISO 8601'),
  resumable: z.boolean(),
});
export type UserInputRequired = z.infer<typeof userInputRequiredSchema>;

export const pendingInteractionSchema = userInputRequiredSchema.extend({
  status: z.enum(['pending', 'expired']),
});
export type PendingInteraction = z.infer<typeof pendingInteractionSchema>;

/**
 * The answer's own limits hold only for an answer: with `cancelled: true` selections and customInput are
 * ignored (docs/protocol.md §4), so a cancel is accepted whatever they hold (the 64 KiB body limit still bounds them).
 */
export const continueBodySchema = z
  .object({
    sessionId: sessionIdSchema,
    requestId: requestIdSchema,
    selections: z.array(z.string()),
    customInput: z.string(),
    cancelled: z.boolean(),
  })
  .superRefine((body, ctx) => {
    if (body.cancelled) return;
    if (body.selections.length > LIMITS.options)
      ctx.addIssue({ code: 'custom', path: ['selections'], message: `at most ${LIMITS.options} selections` });
    const long = body.selections.findIndex((id) => id.length > LIMITS.optionId);
    if (long >= 0)
      ctx.addIssue({ code: 'custom', path: ['selections', long], message: `an option id has at most ${LIMITS.optionId} characters` });
    if (body.customInput.length > LIMITS.customInput)
      ctx.addIssue({ code: 'custom', path: ['customInput'], message: `at most ${LIMITS.customInput} characters` });
  });
export type ContinueBody = z.infer<typeof continueBodySchema>;

export const RESOLVED_STATUSES = ['answered', 'cancelled', 'expired', 'superseded'] as const;
export type ResolvedStatus = (typeof RESOLVED_STATUSES)[number];
export type InteractionStatus = 'pending' | ResolvedStatus;

export const interactionResolvedSchema = z.object({
  requestId: z.string(),
  toolCallId: z.string(),
  status: z.enum(RESOLVED_STATUSES),
  at: z.string(),
  selections: z.array(z.string()),
  customInputLength: z.number().int().nonnegative(),
});
export type InteractionResolved = z.infer<typeof interactionResolvedSchema>;

export const toolResultEventSchema = z.object({
  toolCallId: z.string(),
  name: z.string(),
  content: z.string(),
  isError: z.boolean(),
});
export type ToolResultEvent = z.infer<typeof toolResultEventSchema>;

export const messageDeltaSchema = z.object({ text: z.string() });
export const doneSchema = z.object({ reason: z.enum(['completed', 'paused', 'cancelled', 'error']) });
export type DoneReason = z.infer<typeof doneSchema>['reason'];
export const errorEventSchema = z.object({ code: z.string(), message: z.string() });

/** Content of the ToolResult for the original tool call (docs/protocol.md §4), keys in this order. */
export const toolResultContentSchema = z.object({
  selections: z.array(z.string()),
  customInput: z.string(),
  cancelled: z.boolean(),
  reason: z.enum(['expired', 'superseded']).optional(),
});
export type ToolResultContent = z.infer<typeof toolResultContentSchema>;

export type Answer = Pick<ContinueBody, 'selections' | 'customInput' | 'cancelled'>;

export const ERROR_CODES = [
  'invalid_request',
  'invalid_answer',
  'forbidden',
  'session_mismatch',
  'not_found',
  'already_answered',
  'not_resumable',
  'expired',
  'store_unavailable',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const errorBodySchema = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES),
    message: z.string(),
    field: z.string().optional(),
    receipt: z.object({ requestId: z.string(), toolCallId: z.string(), status: z.enum(RESOLVED_STATUSES), at: z.string() }).optional(),
  }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** Event name → data type, for the SSE writer and the browser's reader. */
export interface ChatEventMap {
  user_input_required: UserInputRequired;
  interaction_resolved: InteractionResolved;
  tool_result: ToolResultEvent;
  message_delta: z.infer<typeof messageDeltaSchema>;
  done: z.infer<typeof doneSchema>;
  error: z.infer<typeof errorEventSchema>;
}
export type ChatEventName = keyof ChatEventMap;
