/**
 * Typed handles on the mocha globals @web/test-runner installs in the page. The project has no
 * @types/mocha, and a global declaration could clash with another test file's; importing these keeps
 * `tsc --noEmit` honest without either.
 */
type Body = (this: unknown) => void | Promise<unknown>;
interface Suite {
  (name: string, body: () => void): void;
}
interface Test {
  (name: string, body: Body): void;
}
type Hook = (body: Body) => void;

const g = globalThis as unknown as { describe: Suite; it: Test; before: Hook; after: Hook; beforeEach: Hook; afterEach: Hook };

export const describe: Suite = (name, body) => g.describe(name, body);
export const it: Test = (name, body) => g.it(name, body);
export const before: Hook = (body) => g.before(body);
export const after: Hook = (body) => g.after(body);
export const beforeEach: Hook = (body) => g.beforeEach(body);
export const afterEach: Hook = (body) => g.afterEach(body);
