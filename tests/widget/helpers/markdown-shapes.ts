/**
 * Markdown that costs a renderer most per character, each as long as §9.3 lets one text be (a preview,
 * 4,000 characters), and ordinary Markdown of the same length to compare them with. Data only: the browser
 * tests check what the renderer makes of the worst shapes, bench/markdown-render.ts times them.
 */

/** The longest text the card renders as Markdown: a preview (the contract's `LIMITS.preview`). */
export const LONGEST = 4000;

/** `unit` repeated to exactly `LONGEST` characters. */
const fill = (unit: string) => unit.repeat(Math.ceil(LONGEST / unit.length)).slice(0, LONGEST);
/** Lines from `line(i)` until `LONGEST` characters. */
const lines = (line: (i: number) => string) => {
  let out = '';
  for (let i = 0; out.length < LONGEST; i++) out += `${line(i)}\n`;
  return out.slice(0, LONGEST);
};

export const WORST_SHAPES: Readonly<Record<string, string>> = {
  '"- " nested on one line': fill('- '),
  '"* " nested on one line': fill('* '),
  '"1. " nested on one line': fill('1. '),
  '"- 1. " nested on one line': fill('- 1. '),
  '"- - - - - - - -" lines': fill('- - - - - - - -\n'),
  '"  - " one step deeper each line': lines((i) => `${'  '.repeat(i)}- a`),
  '"  - " forty steps deep, again and again': lines((i) => `${'  '.repeat(i % 40)}- a`),
  '"*a_" runs': fill('*a_'),
  '"_a*" runs': fill('_a*'),
  '"**a" runs': fill('**a'),
  'a flat list of 1,000 items': fill('- a\n'),
  '"[a](" runs': fill('[a]('),
  '"[![" runs': fill('[!['),
  '"`a" runs': fill('`a'),
  'fence after fence': fill('```\n'),
  'hard breaks': fill('a\\\n'),
};

/** What a model writes in a preview: paragraphs with emphasis, code and a link, a short list, a fenced block. */
export const ORDINARY = fill(
  'Move the **session store** to Redis so that _every_ instance sees the same answers; the `PendingStore` ' +
    'interface stays as it is, see [the notes](https://example.com/notes).\n\n' +
    '- keep the memory store for tests\n- add `ASK_USER_STORE=redis://…`\n- document the migration\n\n' +
    '```ts\nconst store = createStore(process.env.ASK_USER_STORE);\n```\n\n',
);
