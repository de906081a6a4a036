/**
 * Modes and length limits of the contract, free of any dependency so the browser bundle can share them.
 * Limits are in UTF-16 code units (what `String.length` counts).
 */
export const MODES = ['single', 'multiple', 'text', 'number', 'date', 'directory', 'toggle'] as const;
export type Mode = (typeof MODES)[number];

/** Modes whose answer is a set of option ids. */
export const CHOICE_MODES = ['single', 'multiple', 'toggle'] as const satisfies readonly Mode[];
export type ChoiceMode = (typeof CHOICE_MODES)[number];

/** Formats a text answer may be held to (MCP elicitation, §10). */
export const TEXT_FORMATS = ['email', 'uri', 'date-time'] as const;
export type TextFormat = (typeof TEXT_FORMATS)[number];

/**
 * A link a card may open (§10): http or https with a host, no user or password (`https://bank@evil.example`
 * reads as bank), no whitespace, at most LIMITS.url long. Anything else is never shown as a link.
 */
export function isWebUrl(url: string): boolean {
  // Spelled out as scheme://host: URL parsing forgives `https:///x` and `https:\\x`, which read otherwise.
  if (url.length > LIMITS.url || /\s/.test(url) || !/^https?:\/\/[^/\\]/i.test(url)) return false;
  try {
    const u = new URL(url);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' && !u.username && !u.password;
  } catch {
    return false;
  }
}

export const isChoiceMode = (mode: string): mode is ChoiceMode => (CHOICE_MODES as readonly string[]).includes(mode);

export const LIMITS = {
  /** `title` of the question. */
  title: 200,
  /** `description` of the question. */
  description: 2000,
  /** Options per question (choice modes need at least one). */
  options: 50,
  optionId: 128,
  optionLabel: 200,
  optionDescription: 500,
  submitLabel: 40,
  /** Typed text in `customInput` (text answers and the "Other" box). */
  customInput: 8000,
  sessionId: 128,
  /** `placeholder` of a question (docs/protocol.md §9.1). */
  placeholder: 100,
  /** Largest `maxLength` a question may set, in code points (§9.1). */
  maxLength: 8000,
  /** `preview` of an option (docs/protocol.md §9.3), and of all options of a call together. */
  preview: 4000,
  previewsTotal: 20_000,
  /** Questions in one call (docs/protocol.md §9.2). */
  questions: 4,
  /** Questions on one card: an MCP elicitation may ask more than a model's call (§10). */
  cardQuestions: 20,
  /** `id` of a question: 1–64 of [A-Za-z0-9_-]. */
  questionId: 64,
  /** `header`: a question's short chip label. */
  header: 24,
  /** `url` of a link card (MCP elicitation in URL mode, §10). */
  url: 2048,
  /** The user's message to `POST /api/chat` (and a runtime's `chat`). */
  chatMessage: 8000,
  /** JSON body of `POST /api/chat/continue`. */
  bodyBytes: 64 * 1024,
} as const;
