/**
 * Loads submit-rules.ts on demand. A card starts it as soon as it is put in the page, so the rules are in
 * long before anyone can submit; until then a submit waits for them.
 */

/** A module loaded once on demand: `get()` is it once loaded; a failed load is tried again on the next `load()`. */
export interface LazyModule<T> {
  get(): T | undefined;
  /** Resolves with the module, or with `undefined` when its file failed to load. */
  load(): Promise<T | undefined>;
}

export function lazyModule<T>(importer: () => Promise<T>): LazyModule<T> {
  let value: T | undefined;
  let loading: Promise<T | undefined> | undefined;
  return {
    get: () => value,
    load: () =>
      (loading ??= importer().then(
        (m) => (value = m),
        () => (loading = undefined),
      )),
  };
}

export type SubmitRules = typeof import('./submit-rules.js');

/**
 * Should the file fail to load (offline, a host not serving it beside the entry), a submit says the answer
 * was not sent and a try later loads it again, as when the client calls' chunk cannot load.
 */
export const submitRules: LazyModule<SubmitRules> = lazyModule(() => import('./submit-rules.js'));
