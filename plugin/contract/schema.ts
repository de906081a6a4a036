/**
 * The one source of the wire contract (docs/protocol.md §1–5). The model's JSON Schema, the TypeScript
 * types and every runtime check derive from these zod schemas; nothing restates a shape by hand.
 *
 * Runtime code in the browser must not import this file (it pulls in zod): the widget uses
 * `import type` only, and the dependency-free rules in `answer-rules.ts`.
 */
import { z } from 'zod';
import { LIMITS, MODES, CHOICE_MODES, TEXT_FORMATS, isChoiceMode, isWebUrl, type Mode } from './limits.js';
import { BOUND_KEYS, boundsFields, boundsIssues } from './bounds.js';
import { APPROVAL_LIMITS, type ApprovalDecision, type ApprovalRequest } from './approval.js';

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
  description: text(LIMITS.optionDescription).optional().describe('展示说明，可用 Markdown / display description; Markdown'),
  recommended: z.boolean().optional().describe('推荐项 / recommended option'),
  preview: text(LIMITS.preview)
    .optional()
    .describe(
      '选中或聚焦该选项时并排展示的内容（方案、配置、代码），可用 Markdown / shown beside the list when the option is focused or selected (a plan, a config, code); Markdown',
    ),
});

/** What one question is made of, at the top level of a call (§1) or inside `questions` (§9.2). */
const questionFields = {
  title: nonBlank(LIMITS.title).describe('问题标题 / the question'),
  description: text(LIMITS.description)
    .optional()
    .describe(
      '用户需要知道的补充说明，可用 Markdown（强调、代码、列表、http(s) 链接）/ what the user needs to know; Markdown: emphasis, code, lists, http(s) links',
    ),
  mode: z.enum(MODES).describe('决定前端渲染何种控件 / which control the user gets'),
  options: z
    .array(askUserOptionSchema)
    .max(LIMITS.options)
    .optional()
    .describe('single、multiple、toggle 模式的选项 / options for single, multiple, toggle'),
  allowCustom: z.boolean().optional().describe('是否允许用户填写选项之外的内容 / extra free-text box'),
  ...boundsFields,
};

type Path = Array<string | number>;
type QuestionArgs = z.infer<z.ZodObject<typeof questionFields>>;

/** The §1 and §9.1 rules of one question, each issue under `path`. */
function questionIssues(q: QuestionArgs, ctx: z.RefinementCtx, path: Path): void {
  const add = (at: Path, message: string) => ctx.addIssue({ code: 'custom', path: [...path, ...at], message });
  if (!isChoiceMode(q.mode)) {
    for (const issue of boundsIssues(q)) add([issue.path], issue.message);
    return;
  }
  const options = q.options ?? [];
  if (options.length < 1) add(['options'], `mode "${q.mode}" needs 1..${LIMITS.options} options`);
  const seen = new Set<string>();
  options.forEach((o, i) => {
    if (seen.has(o.id)) add(['options', i, 'id'], `duplicate option id ${JSON.stringify(o.id)}`);
    seen.add(o.id);
  });
  // The §9.1 rules need a sound option list (a default names ids, selection bounds count options).
  if (options.length >= 1 && seen.size === options.length) for (const issue of boundsIssues(q)) add([issue.path], issue.message);
}

export const questionIdSchema = z
  .string()
  .regex(new RegExp(`^[A-Za-z0-9_-]{1,${LIMITS.questionId}}$`), `1-${LIMITS.questionId} characters of A-Z a-z 0-9 _ -`);

export const askUserQuestionSchema = z.object({
  id: questionIdSchema.describe('问题标识，回答里按它对应 / id the answer is matched by'),
  header: text(LIMITS.header).optional().describe('很短的标签 / short chip label'),
  ...questionFields,
  required: z.boolean().optional().describe('默认 true；false 时可留空 / default true; false lets the user leave it blank'),
});
export type AskUserQuestion = z.infer<typeof askUserQuestionSchema>;

/** Top-level fields that belong to each question instead once `questions` is given. */
const PER_QUESTION = ['mode', 'options', 'allowCustom', ...BOUND_KEYS] as const;

const askUserArgsObject = z.object({
  ...questionFields,
  mode: questionFields.mode.optional(),
  submitLabel: text(LIMITS.submitLabel).optional().describe('提交按钮文案 / submit button text'),
  questions: z
    .array(askUserQuestionSchema)
    .min(1)
    .max(LIMITS.questions)
    .optional()
    .describe(
      `1–${LIMITS.questions} 个相关问题一次问完，此时 title 是整张卡片的标题，mode 等放在每个问题里 / ask 1–${LIMITS.questions} related questions at once; title then heads the card and mode etc. go on each question`,
    ),
});

/** Tool arguments as the model sends them, with the cross-field rules of docs/protocol.md §1, §9.1 and §9.2. */
export const askUserArgsSchema = askUserArgsObject.superRefine((args, ctx) => {
  const previews = [...(args.options ?? []), ...(args.questions ?? []).flatMap((q) => q.options ?? [])].reduce(
    (n, o) => n + (o.preview?.length ?? 0),
    0,
  );
  if (previews > LIMITS.previewsTotal)
    ctx.addIssue({
      code: 'custom',
      path: [args.questions ? 'questions' : 'options'],
      message: `previews hold ${previews} characters in all; at most ${LIMITS.previewsTotal}`,
    });
  if (args.questions === undefined) {
    if (args.mode === undefined) ctx.addIssue({ code: 'custom', path: ['mode'], message: 'required (or give questions)' });
    else questionIssues(args as QuestionArgs, ctx, []);
    return;
  }
  for (const key of PER_QUESTION) {
    if (args[key] !== undefined)
      ctx.addIssue({ code: 'custom', path: [key], message: 'with questions it goes on each question, not at the top level' });
  }
  const ids = new Set<string>();
  args.questions.forEach((q, i) => {
    if (ids.has(q.id))
      ctx.addIssue({ code: 'custom', path: ['questions', i, 'id'], message: `duplicate question id ${JSON.stringify(q.id)}` });
    ids.add(q.id);
    questionIssues(q, ctx, ['questions', i]);
  });
});

export type AskUserOption = z.infer<typeof askUserOptionSchema>;
export type AskUserArgs = z.infer<typeof askUserArgsSchema>;

/**
 * The form as stored and shown: validated arguments, options dropped for non-choice modes. `url` makes it
 * a link card (MCP elicitation in URL mode, §10): title, description and the link, no question;
 * `approvals` an approval card (§12): the calls of one turn that need the user's leave. Only the kit or a
 * host builds those two, never the model.
 */
export type AskUserForm = AskUserArgs & { url?: string; approvals?: ApprovalRequest[] };

/** What a card shows: one question's mode, `form` for several (§9.2), `url` for a link (§10), `approval` (§12). */
export type CardMode = Mode | 'form' | 'url' | 'approval';
export const formMode = (form: AskUserForm): CardMode =>
  form.approvals !== undefined ? 'approval' : form.url !== undefined ? 'url' : form.questions ? 'form' : form.mode!;

/** One call of an approval card as `user_input_required.approvals` carries it (§12). */
export const approvalRequestSchema = z.object({
  toolCallId: z.string(),
  tool: z.string(),
  title: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  editable: z.boolean(),
  allowAlways: z.boolean(),
  schema: z.record(z.string(), z.unknown()).optional(),
});

/** `ask_` + 128 random bits, base64url (22 chars). Anything else is rejected before the store is asked. */
export const requestIdSchema = z.string().regex(/^ask_[A-Za-z0-9_-]{22,64}$/, 'must look like ask_<base64url>');
export const sessionIdSchema = z
  .string()
  .min(1)
  .max(LIMITS.sessionId)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

/** A question as the card gets it (§9.2): options only on choice modes, `required` always said. */
export const formQuestionSchema = askUserQuestionSchema.extend({
  required: z.boolean(),
  /** Text questions of an MCP elicitation (§10): the answer must have this format. Never from the model. */
  format: z.enum(TEXT_FORMATS).optional(),
});
export type FormQuestion = z.infer<typeof formQuestionSchema>;

export const userInputRequiredSchema = askUserArgsObject.omit({ questions: true }).extend({
  /** A mode of §1, `form` for several questions (§9.2), `url` for a link card (§10), `approval` (§12). */
  mode: z.union([z.enum(MODES), z.literal('form'), z.literal('url'), z.literal('approval')]),
  questions: z.array(formQuestionSchema).optional(),
  /** An approval card's calls, in the order the model made them (§12). */
  approvals: z.array(approvalRequestSchema).max(APPROVAL_LIMITS.calls).optional(),
  /** A link card's http(s) link (§10). */
  url: z.string().refine(isWebUrl, 'an http or https URL').optional(),
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

/** One question's answer in a §9.2 continue body. */
export const questionAnswerSchema = z.object({
  id: questionIdSchema,
  selections: z.array(z.string()),
  customInput: z.string(),
});
export type QuestionAnswer = z.infer<typeof questionAnswerSchema>;

/**
 * The answer's own limits hold only for an answer: with `cancelled: true` selections, customInput and
 * answers are ignored (docs/protocol.md §4, §9.2), so a cancel is accepted whatever they hold (the 64 KiB
 * body limit still bounds them). A body answers one question (`selections`, `customInput`) or several
 * (`answers`), never both; which one the question needs is checked against the stored form.
 */
export const continueBodySchema = z
  .object({
    sessionId: sessionIdSchema,
    requestId: requestIdSchema,
    selections: z.array(z.string()).optional(),
    customInput: z.string().optional(),
    answers: z.array(questionAnswerSchema).optional(),
    /** An approval card's answer (§12), checked against the stored card by `checkDecisions`. */
    decisions: z.array(z.unknown()).max(APPROVAL_LIMITS.calls).optional(),
    cancelled: z.boolean(),
    /** An answer link's token (§13), in place of the owner's credentials. */
    answerToken: z
      .string()
      .regex(/^[A-Za-z0-9_-]{43}$/, 'the token of an answer link')
      .optional(),
  })
  .superRefine((body, ctx) => {
    const add = (path: Path, message: string) => ctx.addIssue({ code: 'custom', path, message });
    if (body.decisions !== undefined) {
      for (const key of ['selections', 'customInput', 'answers'] as const)
        if (body[key] !== undefined) add([key], 'absent when decisions are given');
      return;
    }
    if (body.answers !== undefined) {
      if (body.selections !== undefined || body.customInput !== undefined)
        add([body.selections !== undefined ? 'selections' : 'customInput'], 'absent when answers are given');
    } else {
      if (body.selections === undefined) add(['selections'], 'required (or answers, for several questions)');
      if (body.customInput === undefined) add(['customInput'], 'required (or answers, for several questions)');
    }
    if (body.cancelled) return;
    const one = (path: Path, a: { selections?: string[]; customInput?: string }) => {
      const selections = a.selections ?? [];
      if (selections.length > LIMITS.options) add([...path, 'selections'], `at most ${LIMITS.options} selections`);
      const long = selections.findIndex((id) => id.length > LIMITS.optionId);
      if (long >= 0) add([...path, 'selections', long], `an option id has at most ${LIMITS.optionId} characters`);
      if ((a.customInput ?? '').length > LIMITS.customInput) add([...path, 'customInput'], `at most ${LIMITS.customInput} characters`);
    };
    if (body.answers === undefined) one([], body);
    else {
      if (body.answers.length > LIMITS.cardQuestions) add(['answers'], `at most ${LIMITS.cardQuestions} answers`);
      body.answers.forEach((a, i) => one(['answers', i], a));
    }
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
  /** One question (§4). */
  selections: z.array(z.string()).optional(),
  customInputLength: z.number().int().nonnegative().optional(),
  /** Several questions (§9.2): per question, the ids and the length of the text, never the text. */
  answers: z
    .array(z.object({ id: z.string(), selections: z.array(z.string()), customInputLength: z.number().int().nonnegative() }))
    .optional(),
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

/** The same for several questions (§9.2). */
export const formToolResultContentSchema = z.object({
  answers: z.array(questionAnswerSchema),
  cancelled: z.boolean(),
  reason: z.enum(['expired', 'superseded']).optional(),
});
export type FormToolResultContent = z.infer<typeof formToolResultContentSchema>;

/** What the user gave: for one question its selections and text; for several, `answers` (and empty top-level fields). */
export interface Answer {
  selections: string[];
  customInput: string;
  cancelled: boolean;
  answers?: QuestionAnswer[];
  /** An approval card's decisions (§12), one per call in the card's order; none for a cancel. */
  decisions?: ApprovalDecision[];
}

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
  'replay_expired',
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
