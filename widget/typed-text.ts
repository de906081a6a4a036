/**
 * Typed text held to its limits as the user types or pastes: §9.1 `maxLength` in code points, and the
 * body's limit on `customInput` in UTF-16 units. The browser's own `maxlength` counts UTF-16 units, so under
 * `maxLength: 5` it would stop five emoji at two; the card sets no `maxlength` and clips the text itself the
 * way `maxlength` does: what was just typed or pasted is cut, not the text already there. While an input
 * method is composing (Chinese, Japanese) the text is left alone, and clipped once the composition ends.
 */
import { codePointLength } from '../plugin/contract/answer-rules.js';
import { MAX_CUSTOM_INPUT } from './answer-fields.js';

/** `value` within `maxLength` code points and the body's limit, cut just before `caret`; `undefined` when it fits. */
export function clipTyped(
  value: string,
  maxLength: number | undefined,
  caret = value.length,
): { value: string; caret: number } | undefined {
  const maxPoints = maxLength ?? Infinity;
  // A string holds at most as many code points as UTF-16 units: most text is decided here without counting.
  if (value.length <= MAX_CUSTOM_INPUT && value.length <= maxPoints) return undefined;
  let points = codePointLength(value);
  let units = value.length;
  const over = () => points > maxPoints || units > MAX_CUSTOM_INPUT;
  if (!over()) return undefined;
  const before = [...value.slice(0, caret)];
  const after = [...value.slice(caret)];
  // What was typed ends at the caret; should that not be enough (text set otherwise), the end goes too.
  for (const part of [before, after]) {
    while (over() && part.length) {
      units -= part.pop()!.length;
      points--;
    }
  }
  const head = before.join('');
  return { value: head + after.join(''), caret: head.length };
}

/** The text of the field that fired `e`, clipped in place when typing or pasting took it past its limits. */
export function typedText(e: Event, maxLength: number | undefined): string {
  const field = e.target as HTMLInputElement | HTMLTextAreaElement;
  // Number and date fields have no caret to keep (`selectionEnd` is null) and never hold that much.
  if ((e as InputEvent).isComposing || field.selectionEnd === null) return field.value;
  const clipped = clipTyped(field.value, maxLength, field.selectionEnd);
  if (!clipped) return field.value;
  field.value = clipped.value;
  field.setSelectionRange(clipped.caret, clipped.caret);
  return clipped.value;
}
