/**
 * Pure helpers of the approval card (§12), loaded with it in its lazy chunk: which calls a request carries,
 * whether a tool's schema is flat enough for a form of fields, what an edit reads as, and where a refusal
 * (`decisions[1].arguments.branch`) lands. No lit here, so the tests check them directly.
 */
import { schemaProblem, type ApprovalRequest } from '../plugin/contract/approval.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string';

/**
 * The calls as the card may trust them: they come off the network, so a call without a string
 * `toolCallId`, `tool` and `title` or an object `arguments` is dropped, and only known keys are kept.
 */
export function approvalsOf(raw: unknown): ApprovalRequest[] {
  return (Array.isArray(raw) ? raw : [])
    .filter(
      (a): a is Record<string, unknown> =>
        isRecord(a) && isText(a.toolCallId) && isText(a.tool) && isText(a.title) && isRecord(a.arguments),
    )
    .map((a) => ({
      toolCallId: a.toolCallId as string,
      tool: a.tool as string,
      title: a.title as string,
      arguments: a.arguments as Record<string, unknown>,
      editable: a.editable === true,
      allowAlways: a.allowAlways === true,
      ...(isRecord(a.schema) && { schema: a.schema }),
    }));
}

/** Length in code points, as the server counts a reason. */
export const codePoints = (text: string): number => [...text].length;

/** A string longer than this, or of more lines, shows folded until "show all". */
export const FOLD_CHARS = 160;
export const FOLD_LINES = 3;

/** The folded start of a long string, or undefined when it is short enough to show whole. */
export function folded(text: string): string | undefined {
  const lines = text.split('\n');
  if (codePoints(text) <= FOLD_CHARS && lines.length <= FOLD_LINES) return undefined;
  const head = lines.slice(0, FOLD_LINES).join('\n');
  return [...head].slice(0, FOLD_CHARS).join('') + '…';
}

export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum';

/** One control of the edit form: a property of a flat schema. */
export interface FlatField {
  key: string;
  kind: FieldKind;
  /** The allowed values of an `enum` property. */
  options?: ReadonlyArray<string | number | boolean>;
  required: boolean;
  /** The schema's `title`, else the key. */
  label: string;
  description?: string;
}

const KINDS = new Set(['string', 'number', 'integer', 'boolean']);
const fits = (kind: FieldKind, v: unknown, options?: readonly unknown[]): boolean =>
  kind === 'enum'
    ? options!.includes(v)
    : kind === 'boolean'
      ? typeof v === 'boolean'
      : kind === 'string'
        ? isText(v)
        : typeof v === 'number' && (kind === 'number' || Number.isInteger(v));

/**
 * The fields of a flat object schema (each property a string, number, integer, boolean or enum of those),
 * or undefined when the schema is anything else, or an argument would not fit a field: such a call is
 * edited as JSON text, so nothing it carries is lost.
 */
export function flatFields(schema: Record<string, unknown> | undefined, args: Record<string, unknown>): FlatField[] | undefined {
  if (!schema || (schema.type !== undefined && schema.type !== 'object') || !isRecord(schema.properties)) return undefined;
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter(isText) : []);
  const fields: FlatField[] = [];
  for (const [key, p] of Object.entries(schema.properties)) {
    if (!isRecord(p)) return undefined;
    const options = Array.isArray(p.enum) && p.enum.length ? (p.enum as unknown[]) : undefined;
    if (options && !options.every((o) => ['string', 'number', 'boolean'].includes(typeof o))) return undefined;
    const kind: FieldKind | undefined = options ? 'enum' : isText(p.type) && KINDS.has(p.type) ? (p.type as FieldKind) : undefined;
    if (!kind) return undefined;
    fields.push({
      key,
      kind,
      ...(options && { options: options as Array<string | number | boolean> }),
      required: required.has(key),
      label: isText(p.title) && p.title.trim() ? p.title : key,
      ...(isText(p.description) && { description: p.description }),
    });
  }
  const byKey = new Map(fields.map((f) => [f.key, f]));
  for (const [key, v] of Object.entries(args)) {
    const f = byKey.get(key);
    if (!f || !fits(f.kind, v, f.options)) return undefined;
  }
  return fields.length ? fields : undefined;
}

/** What each field's control holds, as text: a number as typed, an enum as its option's index, a boolean as 'true' / 'false'. */
export type FieldValues = Record<string, string>;

export function fieldValues(fields: readonly FlatField[], args: Record<string, unknown>): FieldValues {
  return Object.fromEntries(
    fields.map((f) => {
      const v = args[f.key];
      return [
        f.key,
        v === undefined ? (f.kind === 'boolean' ? 'false' : '') : f.kind === 'enum' ? String(f.options!.indexOf(v as string)) : String(v),
      ];
    }),
  );
}

/** Why an edit is refused: where (a path suffix of `arguments`, '' for the whole), and which sentence says so. */
export interface EditProblem {
  path: string;
  key: 'approvalRequired' | 'approvalNotANumber' | 'approvalNotAnInteger' | 'approvalNotJson' | 'approvalNotAnObject' | 'approvalSchema';
}

export type EditResult = { value: Record<string, unknown>; problem?: undefined } | { problem: EditProblem; value?: undefined };

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** A property's path segment, written as the server writes it in `error.field`. */
export const keyPath = (key: string): string => (PLAIN_KEY.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`);

const DECIMAL = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/**
 * The arguments the form's fields stand for. A blank field is left out unless the call carried it (an
 * empty text stays ''); a required one left blank is refused where it is. Then the tool's schema decides.
 */
export function readFields(
  fields: readonly FlatField[],
  values: FieldValues,
  original: Record<string, unknown>,
  schema: Record<string, unknown> | undefined,
): EditResult {
  const value: Record<string, unknown> = {};
  for (const f of fields) {
    const raw = values[f.key] ?? '';
    const text = f.kind === 'string' ? raw : raw.trim();
    if (f.kind !== 'boolean' && text === '' && !(f.kind === 'string' && f.key in original)) {
      if (f.required) return { problem: { path: keyPath(f.key), key: 'approvalRequired' } };
      continue;
    }
    if (f.kind === 'number' || f.kind === 'integer') {
      const n = Number(text);
      if (!DECIMAL.test(text) || !Number.isFinite(n)) return { problem: { path: keyPath(f.key), key: 'approvalNotANumber' } };
      if (f.kind === 'integer' && !Number.isInteger(n)) return { problem: { path: keyPath(f.key), key: 'approvalNotAnInteger' } };
      value[f.key] = n;
    } else value[f.key] = f.kind === 'boolean' ? text === 'true' : f.kind === 'enum' ? f.options![Number(text)] : text;
  }
  return checked(schema, value);
}

/** The arguments typed as JSON text: an object, which the schema then decides on. */
export function readJson(text: string, schema: Record<string, unknown> | undefined): EditResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: { path: '', key: 'approvalNotJson' } };
  }
  return isRecord(value) ? checked(schema, value) : { problem: { path: '', key: 'approvalNotAnObject' } };
}

function checked(schema: Record<string, unknown> | undefined, value: Record<string, unknown>): EditResult {
  const problem = schemaProblem(schema, value);
  return problem ? { problem: { path: problem.path, key: 'approvalSchema' } } : { value };
}

/** Same JSON: an edit that changes nothing is no edit, and the call is sent as approved as it was. */
export const sameJson = (a: unknown, b: unknown): boolean => stable(a) === stable(b);
const stable = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    isRecord(x)
      ? Object.fromEntries(
          Object.keys(x)
            .sort()
            .map((k) => [k, x[k]]),
        )
      : x,
  );

/** The part of a decision a refusal names, by call: `decisions[1].arguments.branch` → call 1, `arguments`, `.branch`. */
export interface RefusedAt {
  call: number;
  part: 'decision' | 'reason' | 'always' | 'arguments';
  /** Within `arguments`: the path suffix of the field (`.branch`), '' for the whole. */
  path: string;
}

export function refusedAt(field: string): RefusedAt | undefined {
  const m = /^decisions\[(\d+)\](?:\.(reason|always|arguments)(.*))?/.exec(field);
  if (!m) return undefined;
  return { call: Number(m[1]), part: (m[2] as RefusedAt['part'] | undefined) ?? 'decision', path: m[3] ?? '' };
}
