import { css } from 'lit';

/**
 * Light and dark defaults come from `prefers-color-scheme`; a host recolours through the documented
 * `--ask-user-*` properties, which every internal `--_*` variable reads first. Colour pairs were picked
 * for WCAG AA contrast in both schemes (the axe tests check it).
 */
export const cardStyles = css`
  :host {
    display: block;
    color-scheme: light dark;
    --_font: var(--ask-user-font-family, system-ui, -apple-system, 'Segoe UI', 'PingFang SC', 'Microsoft YaHei', sans-serif);
    --_size: var(--ask-user-font-size, 0.9375rem);
    --_radius: var(--ask-user-radius, 0.75rem);
    --_gap: var(--ask-user-spacing, 0.75rem);
    --_bg: var(--ask-user-background, #ffffff);
    --_fg: var(--ask-user-color, #1f2328);
    --_muted: var(--ask-user-muted-color, #57606a);
    --_border: var(--ask-user-border-color, #d0d7de);
    --_field-bg: var(--ask-user-field-background, #ffffff);
    --_accent: var(--ask-user-accent-color, #0b5cd5);
    --_on-accent: var(--ask-user-accent-contrast-color, #ffffff);
    --_option-hover: var(--ask-user-option-hover-background, #f3f6fa);
    --_badge-bg: var(--ask-user-recommended-background, #dafbe1);
    --_badge-fg: var(--ask-user-recommended-color, #116329);
    --_error: var(--ask-user-error-color, #b3261e);
    --_error-bg: var(--ask-user-error-background, #fdecea);
    --_success: var(--ask-user-success-color, #116329);
    --_focus: var(--ask-user-focus-ring-color, #0b5cd5);
    max-width: var(--ask-user-max-width, 40rem);
    font-family: var(--_font);
    font-size: var(--_size);
    line-height: 1.5;
  }

  @media (prefers-color-scheme: dark) {
    :host {
      --_bg: var(--ask-user-background, #1c2128);
      --_fg: var(--ask-user-color, #e6edf3);
      --_muted: var(--ask-user-muted-color, #9da7b3);
      --_border: var(--ask-user-border-color, #444c56);
      --_field-bg: var(--ask-user-field-background, #22272e);
      --_accent: var(--ask-user-accent-color, #4f9cf9);
      --_on-accent: var(--ask-user-accent-contrast-color, #0d1117);
      --_option-hover: var(--ask-user-option-hover-background, #262c36);
      --_badge-bg: var(--ask-user-recommended-background, #1b3d2a);
      --_badge-fg: var(--ask-user-recommended-color, #7ee2a0);
      --_error: var(--ask-user-error-color, #ff9492);
      --_error-bg: var(--ask-user-error-background, #3d1f22);
      --_success: var(--ask-user-success-color, #7ee2a0);
      --_focus: var(--ask-user-focus-ring-color, #79b8ff);
    }
  }

  :host([hidden]) {
    display: none;
  }

  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }

  .base {
    background: var(--_bg);
    color: var(--_fg);
    border: 1px solid var(--_border);
    border-radius: var(--_radius);
    padding: calc(var(--_gap) * 1.25);
  }

  :focus-visible {
    outline: 2px solid var(--_focus);
    outline-offset: 2px;
  }
  /* Programmatic focus lands on these containers; the ring would only distract there. */
  fieldset:focus:not(:focus-visible),
  .receipt:focus:not(:focus-visible),
  .server-error:focus:not(:focus-visible) {
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
  .receipt-question {
    padding: 0;
    font-size: 1.0625em;
    font-weight: 600;
    margin-bottom: calc(var(--_gap) * 0.5);
    overflow-wrap: anywhere;
  }

  p {
    margin: 0;
  }

  .description,
  .hint,
  .option-description,
  .expiry,
  .receipt-time {
    color: var(--_muted);
    overflow-wrap: anywhere;
  }
  /* Model text keeps its line breaks; template text (countdown, hints) must not pick up indentation. */
  .description,
  .option-description {
    white-space: pre-wrap;
  }
  .hint,
  .option-description,
  .expiry,
  .receipt-time {
    font-size: 0.875em;
  }

  .options {
    display: grid;
    gap: calc(var(--_gap) * 0.5);
  }

  .option {
    display: grid;
    grid-template-columns: auto 1fr;
    column-gap: 0.625rem;
    align-items: start;
    padding: 0.5rem 0.75rem;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) * 0.75);
  }
  .option:hover {
    background: var(--_option-hover);
  }
  .option:has(input:checked) {
    border-color: var(--_accent);
    box-shadow: inset 0 0 0 1px var(--_accent);
  }
  .option label {
    cursor: pointer;
    overflow-wrap: anywhere;
  }
  .option-description {
    grid-column: 2;
  }

  input[type='radio'],
  input[type='checkbox'] {
    margin: 0.2em 0 0;
    width: 1.05em;
    height: 1.05em;
    accent-color: var(--_accent);
  }

  /* A switch drawn on the native checkbox: Space toggles it, the role says "switch". */
  input[role='switch'] {
    appearance: none;
    width: 2.25em;
    height: 1.25em;
    margin-top: 0.1em;
    border-radius: 999px;
    background: var(--_border);
    border: 1px solid var(--_muted);
    position: relative;
    cursor: pointer;
    transition: background-color 120ms;
  }
  input[role='switch']::before {
    content: '';
    position: absolute;
    top: 50%;
    left: 0.125em;
    width: 0.9em;
    height: 0.9em;
    border-radius: 50%;
    background: var(--_bg);
    border: 1px solid var(--_muted);
    transform: translateY(-50%);
    transition: left 120ms;
  }
  input[role='switch']:checked {
    background: var(--_accent);
    border-color: var(--_accent);
  }
  input[role='switch']:checked::before {
    left: calc(100% - 1.025em);
    border-color: var(--_accent);
  }
  @media (prefers-reduced-motion: reduce) {
    input[role='switch'],
    input[role='switch']::before {
      transition: none;
    }
  }

  .badge {
    display: inline-block;
    margin-inline-start: 0.5em;
    padding: 0 0.5em;
    border-radius: 999px;
    font-size: 0.8125em;
    font-weight: 600;
    background: var(--_badge-bg);
    color: var(--_badge-fg);
    vertical-align: 0.05em;
  }

  .field-label {
    display: block;
    font-weight: 500;
    margin-bottom: 0.25rem;
  }

  textarea,
  input[type='text'],
  input[type='number'],
  input[type='date'] {
    display: block;
    width: 100%;
    font: inherit;
    color: var(--_fg);
    background: var(--_field-bg);
    border: 1px solid var(--_muted);
    border-radius: calc(var(--_radius) * 0.5);
    padding: 0.5rem 0.625rem;
  }
  textarea {
    resize: vertical;
    min-height: 4.5em;
  }
  [aria-invalid='true'] {
    border-color: var(--_error);
  }

  .error {
    color: var(--_error);
    font-size: 0.875em;
    font-weight: 500;
  }
  .error::before {
    content: '⚠ ';
  }

  .server-error {
    margin-top: var(--_gap);
    padding: 0.625rem 0.75rem;
    border-radius: calc(var(--_radius) * 0.5);
    background: var(--_error-bg);
    color: var(--_fg);
    border-inline-start: 4px solid var(--_error);
    display: grid;
    gap: 0.375rem;
    justify-items: start;
  }
  .server-error .detail {
    font-size: 0.875em;
    overflow-wrap: anywhere;
  }

  .expiry {
    margin-top: var(--_gap);
  }
  .expiry.soon {
    color: var(--_error);
    font-weight: 600;
  }

  .actions {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
    margin-top: var(--_gap);
  }

  button {
    font: inherit;
    font-weight: 600;
    border-radius: calc(var(--_radius) * 0.5);
    padding: 0.4375rem 1rem;
    cursor: pointer;
    border: 1px solid var(--_border);
    background: var(--_field-bg);
    color: var(--_fg);
  }
  button.primary {
    background: var(--_accent);
    border-color: var(--_accent);
    color: var(--_on-accent);
  }
  button[aria-disabled='true'] {
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
  .receipt[data-kind='answered'] .receipt-status,
  .receipt[data-kind='elsewhere'] .receipt-status {
    color: var(--_success);
  }
  .receipt[data-kind='expired'] .receipt-status,
  .receipt[data-kind='not-resumable'] .receipt-status,
  .receipt[data-kind='gone'] .receipt-status {
    color: var(--_error);
  }
  .receipt-answer {
    display: grid;
    grid-template-columns: auto 1fr;
    gap: 0.125rem 0.75rem;
    margin: 0;
  }
  .receipt-answer dt {
    color: var(--_muted);
  }
  .receipt-answer dd {
    margin: 0;
    overflow-wrap: anywhere;
    white-space: pre-wrap;
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
