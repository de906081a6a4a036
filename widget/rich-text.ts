/**
 * Model text that may use the Markdown subset of docs/protocol.md §9.3 (descriptions, previews). Text
 * without a Markdown character renders as plain text, as before, and loads nothing; otherwise the text
 * shows as plain text until the lazily loaded renderer (markdown.ts) is in, then as its sanitized nodes.
 */
import { noChange, type ChildPart } from 'lit';
import { Directive, directive, type DirectiveResult } from 'lit/directive.js';

/** A character the subset gives meaning to, or a list marker at a line's start. */
const MARKDOWN = /[*_`~[\\]|^ {0,3}(?:[-+]|\d{1,9}[.)])(?:[ \t]|$)/m;

type Render = (text: string) => DocumentFragment;
let render: Render | undefined;
let loading: Promise<unknown> | undefined;

/** True when `text` needs the renderer; plain text never loads it. */
export const isRich = (text: string): boolean => MARKDOWN.test(text);

class RichText extends Directive {
  /** What this place shows now: the text, and whether as Markdown; a re-render with the same keeps its nodes. */
  private _shown?: string;

  render(text: string): unknown {
    return text;
  }

  override update(part: ChildPart, [text]: [string]): unknown {
    const rich = isRich(text);
    if (rich && !render) {
      // The file may fail to load (offline, a host serving only the entry): the text then stays plain.
      loading ??= import('./markdown.js').then(
        (m) => (render = m.renderMarkdown),
        () => {},
      );
      const host = part.options?.host as { requestUpdate?: () => void } | undefined;
      void loading.then(() => render && host?.requestUpdate?.());
    }
    const shown = (rich && render ? 'md:' : 'text:') + text;
    if (shown === this._shown) return noChange;
    this._shown = shown;
    return rich && render ? render(text) : text;
  }
}

/** Renders `text` as the §9.3 subset where it uses Markdown, else as plain text. */
// Typed here so the published declarations name `lit`, the package's dependency, not its inner lit-html.
export const richText: (...values: Parameters<RichText['render']>) => DirectiveResult<typeof RichText> = directive(RichText);
