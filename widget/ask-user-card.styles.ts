import { css } from 'lit';

/**
 * Light and dark defaults come from `prefers-color-scheme`: each colour is read as
 * `var(--ask-user-…, var(--_…))`, the host's documented property first, then the scheme's default, which
 * the dark block alone swaps. Colour pairs were picked for WCAG AA contrast in both schemes (the axe tests
 * check it). Plain media queries rather than `light-dark()`, which WebViews before iOS 17.5 do not know.
 * Selectors are unquoted and merged where rules agree; the build strips comments and indentation.
 */
export const cardStyles = css`
  :host {
    display: block;
    color-scheme: light dark;
    --_bg: #fff;
    --_fg: #1f2328;
    --_muted: #57606a;
    --_border: #d0d7de;
    --_accent: #0b5cd5;
    --_on-accent: #fff;
    --_hover: #f3f6fa;
    --_badge-bg: #dafbe1;
    --_error: #b3261e;
    --_error-bg: #fdecea;
    --_success: #116329;
    --_focus: #0b5cd5;
    /* The defaults a part reads; each is its documented property, else the scheme's colour. */
    --_c-bg: var(--ask-user-background, var(--_bg));
    --_c-fg: var(--ask-user-color, var(--_fg));
    --_c-muted: var(--ask-user-muted-color, var(--_muted));
    --_c-border: var(--ask-user-border-color, var(--_border));
    --_c-field: var(--ask-user-field-background, var(--_bg));
    --_c-accent: var(--ask-user-accent-color, var(--_accent));
    --_c-error: var(--ask-user-error-color, var(--_error));
    --_radius: var(--ask-user-radius, 0.75rem);
    --_gap: var(--ask-user-spacing, 0.75rem);
    max-width: var(--ask-user-max-width, 40rem);
    font-family: var(--ask-user-font-family, system-ui, -apple-system, 'Segoe UI', 'PingFang SC', 'Microsoft YaHei', sans-serif);
    font-size: var(--ask-user-font-size, 0.9375rem);
    line-height: 1.5;
  }
  @media (prefers-color-scheme: dark) {
    :host {
      --_bg: #1c2128;
      --_fg: #e6edf3;
      --_muted: #9da7b3;
      --_border: #444c56;
      --_accent: #4f9cf9;
      --_on-accent: #0d1117;
      --_hover: #262c36;
      --_badge-bg: #1b3d2a;
      --_error: #ff9492;
      --_error-bg: #3d1f22;
      --_success: #7ee2a0;
      --_focus: #79b8ff;
      --_c-field: var(--ask-user-field-background, #22272e);
    }
  }
  :host([hidden]) {
    display: none;
  }
  *,
  ::before,
  ::after {
    box-sizing: border-box;
  }
  .base {
    background: var(--_c-bg);
    color: var(--_c-fg);
    border: 1px solid var(--_c-border);
    border-radius: var(--_radius);
    padding: calc(var(--_gap) * 1.25);
    overflow-wrap: anywhere;
  }
  :focus-visible,
  .base:has(> form > :is(fieldset, h2):focus-visible, > .receipt:focus-visible) {
    outline: 2px solid var(--ask-user-focus-ring-color, var(--_focus));
    outline-offset: 2px;
  }
  /*
   * Focus moves to the fieldset (on a §9.2 card, its heading) or the receipt when the card appears or
   * closes, for screen readers. Their own ring would be a square inside the rounded card; the card's box
   * shows it instead (rule above).
   */
  fieldset:focus,
  h2:focus,
  .receipt:focus,
  [tabindex='-1']:focus:not(:focus-visible) {
    outline: none;
  }
  fieldset {
    border: 0;
    margin: 0;
    padding: 0;
    min-width: 0;
    display: grid;
    gap: var(--_gap);
  }
  legend,
  h2,
  .receipt-question {
    padding: 0;
    font-size: 1.0625em;
    font-weight: 600;
    margin-bottom: calc(var(--_gap) * 0.5);
  }
  p {
    margin: 0;
  }
  /* A card of several questions (§9.2): each question set apart from the next. */
  h2 {
    margin-top: 0;
    font-size: 1.125em;
  }
  h2 + .description {
    margin-bottom: var(--_gap);
  }
  fieldset + fieldset {
    margin-top: calc(var(--_gap) * 1.5);
  }
  .optional {
    font-weight: 400;
    color: var(--_c-muted);
  }
  .description,
  .hint,
  .option-description,
  .expiry,
  .receipt-time,
  dt {
    color: var(--_c-muted);
  }
  /* Model text keeps its line breaks; template text (countdown, hints) must not pick up indentation. */
  .description,
  .option-description,
  dd {
    white-space: pre-wrap;
  }
  .hint,
  .option-description,
  .expiry,
  .receipt-time,
  .error,
  .detail {
    font-size: 0.875em;
  }
  .options {
    display: grid;
    gap: calc(var(--_gap) * 0.5);
  }
  .option {
    position: relative;
    display: grid;
    grid-template-columns: auto 1fr;
    column-gap: 0.625rem;
    align-items: start;
    padding: 0.5rem 0.75rem;
    border: 1px solid var(--_c-border);
    border-radius: calc(var(--_radius) * 0.75);
  }
  .option:hover {
    background: var(--ask-user-option-hover-background, var(--_hover));
  }
  .option:has(:checked) {
    border-color: var(--_c-accent);
    box-shadow: inset 0 0 0 1px var(--_c-accent);
  }
  .option label {
    cursor: pointer;
  }
  /*
   * The label covers its whole bordered box, so a tap on the description or the padding selects it too;
   * the control stays on top, to be hit as itself.
   */
  .option label::after {
    content: '';
    position: absolute;
    inset: 0;
  }
  .option input {
    position: relative;
    z-index: 1;
  }
  .option-description {
    grid-column: 2;
  }
  /* §9.3 Markdown in descriptions and previews: blocks spaced, code set apart, links above the label's cover. */
  :is(.description, .option-description, .preview-body) > * + *,
  li + li {
    margin-top: 0.375em;
  }
  ul,
  ol {
    margin: 0;
    padding-inline-start: 1.5em;
  }
  code {
    font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
    font-size: 0.875em;
  }
  pre {
    margin: 0;
    padding: 0.5rem 0.625rem;
    border-radius: calc(var(--_radius) * 0.5);
    background: var(--_c-field);
    border: 1px solid var(--_c-border);
  }
  /* A description's code wraps: it cannot scroll under an option's label. The preview scrolls instead. */
  .description pre,
  .option-description pre {
    white-space: pre-wrap;
  }
  a {
    color: var(--_c-accent);
    position: relative;
    z-index: 1;
  }
  /* min-width: the fieldset's grid would otherwise widen to a long code line instead of letting the preview scroll. */
  .choices {
    min-width: 0;
    display: flex;
    flex-wrap: wrap;
    align-items: flex-start;
    gap: var(--_gap);
  }
  .choices > * {
    flex: 1 1 15rem;
    min-width: 0;
  }
  .preview {
    max-height: 24rem;
    overflow: auto;
    padding: 0.5rem 0.75rem;
    border: 1px solid var(--_c-border);
    border-radius: calc(var(--_radius) * 0.75);
  }
  .preview-body {
    white-space: pre-wrap;
  }
  /* A long code line widens its code box, and the preview (which takes focus) scrolls, rather than running past the box. */
  .preview-body pre {
    width: max-content;
    min-width: 100%;
  }
  .preview-title {
    font-weight: 600;
    margin-bottom: 0.375em;
  }
  [type='radio'],
  [type='checkbox'] {
    margin: 0.2em 0 0;
    width: 1.05em;
    height: 1.05em;
    accent-color: var(--_c-accent);
  }
  /* A switch drawn on the native checkbox: Space toggles it, the role says "switch". */
  [role='switch'] {
    appearance: none;
    width: 2.25em;
    height: 1.25em;
    margin-top: 0.1em;
    border-radius: 999px;
    background: var(--_c-border);
    border: 1px solid var(--_c-muted);
    position: relative;
    cursor: pointer;
    transition: background-color 120ms;
  }
  [role='switch']::before {
    content: '';
    position: absolute;
    top: 50%;
    left: 0.125em;
    width: 0.9em;
    height: 0.9em;
    border-radius: 50%;
    background: var(--_c-bg);
    border: 1px solid var(--_c-muted);
    transform: translateY(-50%);
    transition: left 120ms;
  }
  [role='switch']:checked {
    background: var(--_c-accent);
    border-color: var(--_c-accent);
  }
  [role='switch']:checked::before {
    left: calc(100% - 1.025em);
    border-color: var(--_c-accent);
  }
  @media (prefers-reduced-motion: reduce) {
    [role='switch'],
    [role='switch']::before {
      transition: none;
    }
  }
  .badge,
  .header {
    display: inline-block;
    margin-inline-start: 0.5em;
    padding: 0 0.5em;
    border-radius: 999px;
    font-size: 0.8125em;
    font-weight: 600;
    background: var(--ask-user-recommended-background, var(--_badge-bg));
    color: var(--ask-user-recommended-color, var(--_success));
    vertical-align: 0.05em;
  }
  /* The §9.2 header chip: an outline, so it does not read as the recommended badge. */
  .header {
    margin: 0 0.25em 0 0;
    background: none;
    color: inherit;
    border: 1px solid var(--_c-border);
  }
  .field-label {
    display: block;
    font-weight: 500;
    margin-bottom: 0.25rem;
  }
  textarea,
  [part='field'] {
    display: block;
    width: 100%;
    font: inherit;
    /* iOS zooms the page into any field under 16px when it takes focus. */
    font-size: max(16px, 1em);
    color: var(--_c-fg);
    background: var(--_c-field);
    border: 1px solid var(--_c-muted);
    border-radius: calc(var(--_radius) * 0.5);
    padding: 0.5rem 0.625rem;
  }
  textarea {
    resize: vertical;
    min-height: 4.5em;
  }
  [aria-invalid='true'] {
    border-color: var(--_c-error);
  }
  .error {
    color: var(--_c-error);
    font-weight: 500;
  }
  .error::before {
    content: '⚠ ';
  }
  .server-error {
    padding: 0.625rem 0.75rem;
    border-radius: calc(var(--_radius) * 0.5);
    background: var(--ask-user-error-background, var(--_error-bg));
    border-inline-start: 4px solid var(--_c-error);
    display: grid;
    gap: 0.375rem;
    justify-items: start;
  }
  .server-error,
  .expiry,
  .actions {
    margin-top: var(--_gap);
  }
  .soon {
    color: var(--_c-error);
    font-weight: 600;
  }
  .actions {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
  }
  /* 44px: the smallest target a finger hits reliably (WCAG 2.5.5, Apple's guidelines). */
  button,
  .button {
    font: inherit;
    font-weight: 600;
    min-height: 44px;
    border-radius: calc(var(--_radius) * 0.5);
    padding: 0.4375rem 1rem;
    cursor: pointer;
    border: 1px solid var(--_c-border);
    background: var(--_c-field);
    color: var(--_c-fg);
  }
  /* A link drawn as a button centres its words in that height, as a button does. */
  .button {
    display: inline-flex;
    align-items: center;
    text-decoration: none;
  }
  .primary {
    background: var(--_c-accent);
    border-color: var(--_c-accent);
    color: var(--ask-user-accent-contrast-color, var(--_on-accent));
  }
  [aria-disabled='true'] {
    cursor: progress;
    opacity: 0.75;
  }
  .receipt {
    display: grid;
    gap: 0.375rem;
  }
  .receipt-status {
    font-weight: 600;
  }
  [data-kind='answered'] .receipt-status {
    color: var(--ask-user-success-color, var(--_success));
  }
  .late,
  [data-kind='expired'] .receipt-status,
  [data-kind='not-resumable'] .receipt-status,
  [data-kind='gone'] .receipt-status,
  [data-run='error'] {
    color: var(--_c-error);
  }
  .receipt-answer {
    display: grid;
    grid-template-columns: auto 1fr;
    gap: 0.125rem 0.75rem;
    margin: 0;
  }
  dd {
    margin: 0;
  }
  .sr-only {
    position: absolute;
    width: 1px;
    height: 1px;
    margin: -1px;
    padding: 0;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
    border: 0;
  }
`;
