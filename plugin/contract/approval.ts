/**
 * Tool approval on the card (contract §12): what an approval card holds, what its answer (`decisions`) must
 * be, and the ToolResult a denied call gets. One pure module shared by the server, which checks a continue
 * against the stored card, and the widget, which checks before it sends; no zod, so it ships in the browser.
 * Edited arguments are checked against the tool's JSON Schema with @cfworker/json-schema (no code
 * generation, so it runs under any page's content security policy).
 */
import { Validator, type Schema } from '@cfworker/json-schema';

/** One call on an approval card, as `user_input_required.approvals` carries it. */
export interface ApprovalRequest {
  toolCallId: string;
  /** The tool's name as the model called it. */
  tool: string;
  /** A sentence saying what the call does: the host's `describe(args)`, else the tool's description. */
  title: string;
  /** The call's parsed JSON arguments, after the host's `redact` hook. */
  arguments: Record<string, unknown>;
  /** The user may change the arguments before approving. */
  editable: boolean;
  /** The user may approve the tool for the rest of the session. */
  allowAlways: boolean;
  /** The tool's JSON Schema for its arguments; given when `editable`. */
  schema?: Record<string, unknown>;
}

/** The user's decision on one call, in the card's order. */
export interface ApprovalDecision {
  toolCallId: string;
  decision: 'approve' | 'deny';
  /** Why not (with `deny`), at most APPROVAL_LIMITS.reason characters. */
  reason?: string;
  /** The edited arguments (with `approve`, on an editable call). */
  arguments?: Record<string, unknown>;
  /** Approve this tool for the rest of the session (on a call that allows it). */
  always?: boolean;
}

export const APPROVAL_LIMITS = {
  /** Calls on one card. */
  calls: 16,
  /** Characters of a deny reason. */
  reason: 500,
} as const;

/** Why a closed card denies its calls: the card's cancel, or a closing without an answer. */
export type DenyReason = 'cancelled' | 'expired' | 'superseded';

/** The exact ToolResult content of a denied call (§12): `{"denied":true,"reason":"…"}`. */
export const deniedResultText = (reason = ''): string => JSON.stringify({ denied: true, reason });

/** The error result of an approved call whose run was interrupted at "about to run" (§12, at most once). */
export const INTERRUPTED_RESULT = JSON.stringify({ interrupted: true });

export type ApprovalCheck = { ok: true } | { ok: false; field: string; message: string };

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The decisions fit the card: one per call, in order, each approve or deny; a reason only with deny and
 * within its limit; edited arguments only on an editable call and valid against its schema; `always` only
 * where allowed. `field` names the deepest field at fault (`decisions[1].arguments.branch`), never a value.
 */
export function checkDecisions(approvals: readonly ApprovalRequest[], decisions: unknown): ApprovalCheck {
  const fail = (field: string, message: string): ApprovalCheck => ({ ok: false, field, message });
  if (!Array.isArray(decisions)) return fail('decisions', 'a list with one decision per call of the card');
  if (decisions.length !== approvals.length) return fail('decisions', `one decision per call: the card has ${approvals.length}`);
  for (let i = 0; i < approvals.length; i++) {
    const call = approvals[i]!;
    const at = `decisions[${i}]`;
    const d: unknown = decisions[i];
    if (!isPlainObject(d)) return fail(at, 'a decision object');
    if (d.toolCallId !== call.toolCallId) return fail(`${at}.toolCallId`, "the card's calls, one to one and in order");
    if (d.decision !== 'approve' && d.decision !== 'deny') return fail(`${at}.decision`, 'approve or deny');
    if (d.reason !== undefined) {
      if (typeof d.reason !== 'string') return fail(`${at}.reason`, 'text');
      if (d.decision !== 'deny') return fail(`${at}.reason`, 'a reason goes with deny only');
      if ([...d.reason].length > APPROVAL_LIMITS.reason) return fail(`${at}.reason`, `at most ${APPROVAL_LIMITS.reason} characters`);
    }
    if (d.always !== undefined) {
      if (typeof d.always !== 'boolean') return fail(`${at}.always`, 'true or false');
      if (d.always && !call.allowAlways) return fail(`${at}.always`, 'this tool may not be approved for the session');
      if (d.always && d.decision !== 'approve') return fail(`${at}.always`, 'only an approval can be for the session');
    }
    if (d.arguments !== undefined) {
      if (!call.editable) return fail(`${at}.arguments`, 'the arguments of this call cannot be edited');
      if (d.decision !== 'approve') return fail(`${at}.arguments`, 'edited arguments go with approve only');
      if (!isPlainObject(d.arguments)) return fail(`${at}.arguments`, 'a JSON object');
      const problem = schemaProblem(call.schema, d.arguments);
      if (problem) return fail(`${at}.arguments${problem.path}`, problem.message);
    }
    for (const key of Object.keys(d)) {
      if (!DECISION_KEYS.has(key)) return fail(`${at}.${key}`, 'not a field of a decision');
    }
  }
  return { ok: true };
}

const DECISION_KEYS = new Set(['toolCallId', 'decision', 'reason', 'arguments', 'always']);

/** Property names that read as a path segment as they are; others are written `["…"]`. */
const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The deepest place where `value` breaks `schema`, as a path suffix (`.branch`, `[2].name`), and a message
 * that names the rule, never the value. Undefined when it fits (or there is no schema).
 */
export function schemaProblem(schema: Record<string, unknown> | undefined, value: unknown): { path: string; message: string } | undefined {
  if (!schema) return undefined;
  const result = new Validator(schema as Schema, '2020-12', false).validate(value);
  if (result.valid) return undefined;
  // The deepest instance location is the field to point at; the validator lists its parents too.
  let deepest = result.errors[0]!;
  for (const error of result.errors)
    if (segments(error.instanceLocation).length > segments(deepest.instanceLocation).length) deepest = error;
  const path = segments(deepest.instanceLocation)
    .map((s) => (/^\d+$/.test(s) ? `[${s}]` : PLAIN_KEY.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`))
    .join('');
  return { path, message: `does not fit the tool's schema (${deepest.keyword})` };
}

/** The segments of a JSON pointer fragment (`#/a/0/b~1c` → a, 0, b/c). */
function segments(location: string): string[] {
  const pointer = location.replace(/^#/, '');
  if (pointer === '' || pointer === '/') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
}
