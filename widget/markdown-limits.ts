/**
 * Bounds on the work of turning one text into Markdown (§9.3), whatever the model wrote. micromark's cost
 * grows with every list item, with the square of list nesting and with the square of emphasis markers that
 * find no partner: 4,000 characters of `- - - …` took 0.25 s in Chromium and `*a_*a_…` 0.12 s, where
 * ordinary Markdown of that length takes under 10 ms. Past these bounds the characters stay literal text,
 * as anything outside the subset does. Part of the lazily loaded renderer (markdown.ts).
 */
import { parse, type Options } from 'micromark';

type Extension = NonNullable<Options['extensions']>[number];
type ConstructRecord = NonNullable<Extension['document']>;
type Construct = Exclude<ConstructRecord[number], unknown[] | undefined>;

/**
 * A list item may start only this many columns in. Each level of nesting starts at least two columns
 * right of its parent, so lists nest at most 12 deep (6 with four-space indents), plenty for a plan.
 */
export const LIST_COLUMNS = 24;
/** List items in one text; more lines starting with `- ` read as text. */
export const LIST_ITEMS = 200;
/** Runs of `*` or `_` in one text; past them, `*` and `_` are literal. */
export const EMPHASIS_RUNS = 200;

/** micromark's own constructs, taken from its parser: this module uses only micromark's public API. */
const defaults = parse().constructs;
function construct(record: ConstructRecord, code: number, name: string): Construct {
  const found = [record[code]].flat().find((c) => c?.name === name);
  if (!found) throw new Error(`micromark has no "${name}" construct at ${code}; update widget/markdown-limits.ts`);
  return found;
}
const list = construct(defaults.document, 45, 'list');
const attention = construct(defaults.text, 42, 'attention');

/** What one text (one `micromark()` call, one parser) has spent so far. */
interface Spent {
  /** Where each list item started: micromark tries the same start more than once. */
  items: Set<number>;
  runs: number;
}
const spent = new WeakMap<object, Spent>();
const spentOn = (parser: object): Spent => {
  let s = spent.get(parser);
  if (!s) spent.set(parser, (s = { items: new Set(), runs: 0 }));
  return s;
};

const boundedList: Construct = {
  ...list,
  name: 'boundedList',
  tokenize(effects, ok, nok) {
    const { column, offset } = this.now();
    const { items } = spentOn(this.parser);
    if (column > LIST_COLUMNS || (items.size >= LIST_ITEMS && !items.has(offset))) return nok;
    return list.tokenize.call(this, effects, (code) => (items.add(offset), ok(code)), nok);
  },
  continuation: {
    // The next item of a list starts here, through micromark's own list construct: it is bounded too.
    tokenize(effects, ok, nok) {
      const bounded: typeof effects = { ...effects, attempt: (c, ...rest) => effects.attempt(c === list ? boundedList : c, ...rest) };
      return list.continuation!.tokenize.call(this, bounded, ok, nok);
    },
  },
};

const boundedAttention: Construct = {
  ...attention,
  name: 'boundedAttention',
  tokenize(effects, ok, nok) {
    return ++spentOn(this.parser).runs > EMPHASIS_RUNS ? nok : attention.tokenize.call(this, effects, ok, nok);
  },
};

const LIST_MARKERS = [42, 43, 45, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57];

/**
 * micromark's options as this module fills them, typed here: the package's declarations must not name
 * micromark, which is bundled into the Markdown chunk and not a dependency a consumer installs.
 */
export interface BoundedOptions {
  readonly extensions: readonly object[];
}

/** micromark options: lists and emphasis within the bounds above; pass `disable` for the constructs to switch off. */
export function boundedMarkdown(disable: string[]): BoundedOptions {
  const options: Options = {
    extensions: [
      { disable: { null: [...disable, 'list', 'attention'] } },
      {
        document: Object.fromEntries(LIST_MARKERS.map((code) => [code, boundedList])),
        text: { 42: boundedAttention, 95: boundedAttention },
      },
    ],
  };
  return options as BoundedOptions;
}
