/**
 * Contract §10: an MCP `elicitation/create` form (its `requestedSchema`) as a card of questions (§9.2),
 * and the card's answers back as the typed `content` the MCP server asked for. A property in a shape the
 * mapping does not cover makes the whole request unmappable: it is declined, never half shown.
 */
import type { AskUserForm, AskUserQuestion, QuestionAnswer } from '../contract/schema.js';
import { LIMITS, isWebUrl, type TextFormat } from '../contract/limits.js';

/** Most questions one elicitation may turn into (§10). */
export const ELICITATION_QUESTIONS = LIMITS.cardQuestions;

type Json = Record<string, unknown>;
/** A question of an elicitation card: a §9.2 question that may also hold its text answer to a format. */
export type ElicitationQuestion = AskUserQuestion & { format?: TextFormat };
type Kind = 'enum' | 'enums' | 'boolean' | 'number' | 'integer' | 'date' | 'string';

type Value = string | number | boolean | string[];

/** What the answer of each question goes back as: the property's name and its JSON type. */
export interface PropertyPlan {
  name: string;
  questionId: string;
  kind: Kind;
  /** The property's schema `default`, when it has the property's type: a blank optional answer takes it. */
  default?: Value;
}

export type MappedForm = { ok: true; form: AskUserForm; plan: PropertyPlan[] } | { ok: false; reason: string };

const YES_NO = { zh: ['是', '否'], en: ['Yes', 'No'] } as const;
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown, max: number) => (typeof v === 'string' && v.trim() ? v.slice(0, max) : undefined);

/** `[{ const, title }]` (or `enum` with legacy `enumNames`) as option ids and labels; undefined when neither. */
function choices(schema: Json): Array<{ id: string; label: string }> | undefined {
  const list = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (list) {
    if (!list.every((c) => isObj(c) && typeof c.const === 'string')) return undefined;
    return list.map((c) => ({
      id: (c as Json).const as string,
      label: str((c as Json).title, LIMITS.optionLabel) ?? ((c as Json).const as string),
    }));
  }
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return (schema.enum as string[]).map((id, i) => ({ id, label: str(names[i], LIMITS.optionLabel) ?? id }));
  }
  return undefined;
}

/** One property as a question, or the reason it cannot be one. */
function questionOf(
  name: string,
  schema: unknown,
  index: number,
  required: boolean,
  locale: 'zh' | 'en',
): { q: ElicitationQuestion; kind: Kind } | string {
  if (!isObj(schema)) return `property ${JSON.stringify(name)} has no schema`;
  const id = ID.test(name) ? name : `q${index}`;
  const base = {
    id,
    title: str(schema.title, LIMITS.title) ?? name.slice(0, LIMITS.title),
    ...(str(schema.description, LIMITS.description) ? { description: str(schema.description, LIMITS.description)! } : {}),
    ...(required ? {} : { required: false }),
  };
  const options = (list: Array<{ id: string; label: string }>) => {
    if (list.length < 1 || list.length > LIMITS.options || new Set(list.map((o) => o.id)).size !== list.length) return undefined;
    if (list.some((o) => o.id.length > LIMITS.optionId || !o.id.trim())) return undefined;
    return list;
  };
  switch (schema.type) {
    case 'boolean': {
      const [yes, no] = YES_NO[locale];
      const q: AskUserQuestion = {
        ...base,
        mode: 'single',
        options: [
          { id: 'true', label: yes },
          { id: 'false', label: no },
        ],
      };
      if (typeof schema.default === 'boolean') q.default = String(schema.default);
      return { q, kind: 'boolean' };
    }
    case 'number':
    case 'integer': {
      const q: AskUserQuestion = { ...base, mode: 'number' };
      if (typeof schema.minimum === 'number') q.min = schema.minimum;
      if (typeof schema.maximum === 'number') q.max = schema.maximum;
      if (schema.type === 'integer') q.step = 1;
      if (typeof schema.default === 'number') q.default = String(schema.default);
      return { q, kind: schema.type };
    }
    case 'array': {
      const items = isObj(schema.items) ? options(choices(schema.items) ?? []) : undefined;
      if (!items) return `property ${JSON.stringify(name)} is an array without enum or anyOf items`;
      const q: AskUserQuestion = { ...base, mode: 'multiple', options: items };
      if (typeof schema.minItems === 'number') q.minSelections = schema.minItems;
      if (typeof schema.maxItems === 'number') q.maxSelections = schema.maxItems;
      if (Array.isArray(schema.default) && schema.default.every((v) => typeof v === 'string')) q.default = schema.default as string[];
      return { q, kind: 'enums' };
    }
    case 'string': {
      const listed = choices(schema);
      if (listed) {
        const opts = options(listed);
        if (!opts) return `property ${JSON.stringify(name)} has an unusable list of choices`;
        const q: AskUserQuestion = { ...base, mode: 'single', options: opts };
        if (typeof schema.default === 'string') q.default = schema.default;
        return { q, kind: 'enum' };
      }
      if (schema.format === 'date') {
        const q: AskUserQuestion = { ...base, mode: 'date' };
        if (typeof schema.default === 'string') q.default = schema.default;
        return { q, kind: 'date' };
      }
      const q: ElicitationQuestion = { ...base, mode: 'text' };
      if (typeof schema.minLength === 'number') q.minLength = schema.minLength;
      if (typeof schema.maxLength === 'number') q.maxLength = Math.min(schema.maxLength, LIMITS.maxLength);
      if (schema.format === 'email' || schema.format === 'uri' || schema.format === 'date-time') q.format = schema.format;
      if (typeof schema.default === 'string') q.default = schema.default;
      return { q, kind: 'string' };
    }
    default:
      return `property ${JSON.stringify(name)} has type ${JSON.stringify(schema.type)}, which no question takes`;
  }
}

/** The request's `message` as the card's title (its first line) and description (the rest). */
function heading(message: string, locale: 'zh' | 'en'): { title: string; description?: string } {
  const [first = '', ...rest] = message.split('\n');
  const title = first.trim().slice(0, LIMITS.title) || (locale === 'zh' ? '需要你提供信息' : 'Information needed');
  const description = rest.join('\n').trim().slice(0, LIMITS.description);
  return description ? { title, description } : { title };
}

/** A URL-mode request as a link card; a link that is not plain http(s) is never shown. */
export function linkFromElicitation(message: string, url: unknown, locale: 'zh' | 'en' = 'zh'): MappedForm {
  if (typeof url !== 'string' || !isWebUrl(url)) {
    // Not quoted: a link may carry a token, and this reason is logged.
    return { ok: false, reason: `the url is not an http(s) link with a host and no credentials, of at most ${LIMITS.url} characters` };
  }
  return { ok: true, form: { ...heading(message, locale), url }, plan: [] };
}

/** The request's `message` and `requestedSchema` as a card, in property order. */
export function formFromElicitation(message: string, requestedSchema: unknown, locale: 'zh' | 'en' = 'zh'): MappedForm {
  if (!isObj(requestedSchema) || requestedSchema.type !== 'object' || !isObj(requestedSchema.properties)) {
    return { ok: false, reason: 'requestedSchema is not an object schema with properties' };
  }
  const names = Object.keys(requestedSchema.properties);
  if (names.length < 1 || names.length > ELICITATION_QUESTIONS) {
    return { ok: false, reason: `requestedSchema has ${names.length} properties; a card takes 1 to ${ELICITATION_QUESTIONS}` };
  }
  const required = new Set(Array.isArray(requestedSchema.required) ? (requestedSchema.required as unknown[]) : []);
  const questions: ElicitationQuestion[] = [];
  const plan: PropertyPlan[] = [];
  for (const [i, name] of names.entries()) {
    const mapped = questionOf(name, requestedSchema.properties[name], i, required.has(name), locale);
    if (typeof mapped === 'string') return { ok: false, reason: mapped };
    if (plan.some((p) => p.questionId === mapped.q.id)) mapped.q.id = `q${i}`;
    questions.push(mapped.q);
    const fallback = defaultOf(mapped.kind, (requestedSchema.properties[name] as Json).default);
    plan.push({ name, questionId: mapped.q.id, kind: mapped.kind, ...(fallback !== undefined ? { default: fallback } : {}) });
  }
  return { ok: true, form: { ...heading(message, locale), questions }, plan };
}

/** A schema default of the property's own JSON type, else nothing: a wrong-typed default is never sent back. */
function defaultOf(kind: Kind, value: unknown): Value | undefined {
  switch (kind) {
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'number':
    case 'integer':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
    case 'enums':
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? [...(value as string[])] : undefined;
    default:
      return typeof value === 'string' ? value : undefined;
  }
}

/**
 * The card's answers as the typed `content` of an `accept`. A blank optional question takes its schema
 * default when it has one (the client declares `applyDefaults`, as MCP 2025-11-25 lets it), else is left out.
 */
export function contentFromAnswers(plan: readonly PropertyPlan[], answers: readonly QuestionAnswer[]): Record<string, Value> {
  const content: Record<string, Value> = {};
  for (const p of plan) {
    const a = answers.find((x) => x.id === p.questionId);
    if (!a || (a.selections.length === 0 && a.customInput === '')) {
      if (p.default !== undefined) content[p.name] = Array.isArray(p.default) ? [...p.default] : p.default;
      continue;
    }
    switch (p.kind) {
      case 'boolean':
        content[p.name] = a.selections[0] === 'true';
        break;
      case 'number':
      case 'integer':
        content[p.name] = Number(a.customInput.trim());
        break;
      case 'enum':
        content[p.name] = a.selections[0] ?? a.customInput;
        break;
      case 'enums':
        content[p.name] = [...a.selections];
        break;
      default:
        content[p.name] = a.customInput;
    }
  }
  return content;
}
