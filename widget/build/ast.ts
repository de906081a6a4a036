/** Walking and editing the ESTree of one small module, for the widget's build plugins. */

export type Node = { type: string; start: number; end: number; [key: string]: unknown };

/** Every node below `node`, depth first (the ESTree of one small module: recursion is fine). */
export function* walk(node: unknown): Generator<Node> {
  if (Array.isArray(node)) for (const child of node) yield* walk(child);
  else if (node && typeof node === 'object' && typeof (node as Node).type === 'string') {
    yield node as Node;
    for (const value of Object.values(node)) if (value && typeof value === 'object') yield* walk(value);
  }
}

/** `code` with each `[start, end, text]` range replaced; ranges must not overlap. */
export function applyEdits(code: string, edits: Array<[number, number, string]>): string {
  let out = code;
  for (const [start, end, text] of [...edits].sort((a, b) => b[0] - a[0])) out = out.slice(0, start) + text + out.slice(end);
  return out;
}
