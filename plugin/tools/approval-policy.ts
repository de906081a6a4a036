/**
 * Which tool calls need the user's leave (contract §12), and how a call shows on the approval card. A
 * host's tool says it with the fields of `ApprovalPolicy`, on a LoopTool itself or, for the AI SDK
 * runtime, next to an AI SDK tool; both runtimes build their one card per turn from here.
 */
import { APPROVAL_LIMITS, type ApprovalRequest } from '../contract/approval.js';
import type { AskUserForm, UserInputRequired } from '../contract/schema.js';
import type { ToolLocale } from '../contract/tool-definition.js';
import type { Coordinator } from '../core/coordinator.js';
import type { InteractionRecord } from '../store/types.js';

/** What a `needsApproval` function is told besides the arguments. */
export interface ApprovalContext {
  sessionId: string;
  toolCallId: string;
}

export interface ApprovalPolicy {
  /**
   * The call runs only once the user approved it on a card: always (`true`), or when the function says so
   * for these arguments. A function that throws counts as `true`: a failing check never lets a call through.
   */
  needsApproval?: boolean | ((args: Record<string, unknown>, ctx: ApprovalContext) => boolean | Promise<boolean>);
  /** The user may change the arguments before approving (checked against the tool's JSON Schema). */
  editable?: boolean;
  /** The card offers "allow this tool for the rest of the session". */
  allowAlways?: boolean;
  /** The sentence the card shows for a call; the tool's description otherwise. */
  describe?(args: Record<string, unknown>): string;
  /** The arguments as the card may show them (hide secrets); the call still runs with the real ones. */
  redact?(args: Record<string, unknown>): Record<string, unknown>;
  /**
   * Running the call twice does no harm: after a crash between "about to run" and its result, it runs
   * again instead of getting `{"interrupted":true}`.
   */
  idempotent?: boolean;
}

/** True when this call waits for the user's approval; a check that throws says yes. */
export async function callNeedsApproval(
  policy: ApprovalPolicy | undefined,
  args: Record<string, unknown>,
  ctx: ApprovalContext,
): Promise<boolean> {
  const rule = policy?.needsApproval;
  if (typeof rule !== 'function') return rule === true;
  try {
    return (await rule(args, ctx)) !== false;
  } catch {
    return true;
  }
}

/** A call that needs approval, with what the card shows of it. */
export interface ApprovalCall {
  toolCallId: string;
  tool: string;
  description: string;
  /** The tool's JSON Schema, sent with an editable call. */
  parameters: Record<string, unknown>;
  args: Record<string, unknown>;
  policy: ApprovalPolicy | undefined;
}

/** Longest title a call shows; a longer description is cut at a word. */
const TITLE_CHARS = 200;

/** One call as the card shows it: `describe` or the description, redacted arguments, the schema when editable. */
export function approvalRequestOf({ toolCallId, tool, description, parameters, args, policy }: ApprovalCall): ApprovalRequest {
  const editable = policy?.editable === true;
  let title = safely(() => policy?.describe?.(args)) || description || tool;
  if ([...title].length > TITLE_CHARS) title = `${[...title].slice(0, TITLE_CHARS - 1).join('')}…`;
  // A redact hook that fails shows nothing rather than the secrets it was meant to hide.
  const shown = policy?.redact ? (safely(() => policy.redact!(args)) ?? {}) : args;
  return {
    toolCallId,
    tool,
    title,
    arguments: shown,
    editable,
    allowAlways: policy?.allowAlways === true,
    ...(editable ? { schema: parameters } : {}),
  };
}

const safely = <T>(fn: () => T): T | undefined => {
  try {
    return fn();
  } catch {
    return undefined;
  }
};

/** The card's title: a summary of how many calls wait (§12). */
export function approvalTitle(count: number, locale: ToolLocale): string {
  if (locale === 'en') return count === 1 ? 'Allow 1 action?' : `Allow ${count} actions?`;
  return `允许 ${count} 项操作？`;
}

/** The approval card of one turn's calls, in the order the model made them. */
export const approvalForm = (requests: ApprovalRequest[], locale: ToolLocale): AskUserForm => ({
  title: approvalTitle(requests.length, locale),
  approvals: requests,
});

/** The calls past what one card holds: the model is told to make them again after this card. */
export const TOO_MANY_FOR_ONE_CARD = (tool: string) =>
  `${tool} was not run: at most ${APPROVAL_LIMITS.calls} calls can wait for the user's approval at once. Call it again after the user has decided on the others.`;

/** The ask_user call of a turn whose tool calls wait for approval: one card at a time. */
export const ASK_AFTER_APPROVAL =
  "ask_user was not shown to the user: this turn's other tool calls are waiting for the user's approval. Ask after the user has decided on them, if it is still needed.";

/** A turn's calls that need approval, put on one card (§12); calls past the card's limit come back refused. */
export async function askForApproval(
  coordinator: Pick<Coordinator, 'ask'>,
  calls: readonly ApprovalCall[],
  { sessionId, locale }: { sessionId: string; locale: ToolLocale },
): Promise<{ record: InteractionRecord; event: UserInputRequired; refused: ApprovalCall[] }> {
  const shown = calls.slice(0, APPROVAL_LIMITS.calls);
  // The runner superseded any open card before this turn and holds the lease: no lookup needed.
  const { record, event } = await coordinator.ask(approvalForm(shown.map(approvalRequestOf), locale), {
    sessionId,
    toolCallId: shown[0]!.toolCallId,
    noneOpen: true,
  });
  return { record, event, refused: calls.slice(APPROVAL_LIMITS.calls) };
}
