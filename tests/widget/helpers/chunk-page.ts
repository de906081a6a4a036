/**
 * What the lazily loaded chunks' tests share (the Markdown renderer, the approval card): cards mounted from
 * a built bundle, and how often a chunk's file was fetched. Not card-fixtures' `request`: that module imports
 * the sources, which would define the element before the bundle does.
 */
let n = 0;

/** A minimal well-formed `user_input_required` with `o` over it. */
export const request = (o: Record<string, unknown>) => ({
  id: `ask_chunk${++n}${'A'.repeat(16)}`,
  toolCallId: `call_${n}`,
  sessionId: 's',
  title: 'Q',
  expiresAt: new Date(Date.now() + 60_000).toISOString(),
  ...o,
});

export type Card = HTMLElement & { request?: unknown; updateComplete: Promise<boolean> };

export async function mount(req: unknown): Promise<Card> {
  const card = document.createElement('ask-user-card') as Card;
  card.request = req;
  document.body.append(card);
  await card.updateComplete;
  return card;
}

/** Fetches of the file at `path` (its end) so far. */
export const fetchedCount = (path: string) => performance.getEntriesByType('resource').filter((e) => e.name.endsWith(path)).length;
