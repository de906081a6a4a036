/**
 * axe-core in the page, loaded once from node_modules by a script tag (it is a UMD bundle, not a module).
 * `checkA11y` fails with every violation spelled out: rule, impact, the offending nodes.
 */
interface AxeResult {
  violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown; failureSummary?: string }> }>;
}
interface Axe {
  run(context: Element, options: Record<string, unknown>): Promise<AxeResult>;
}

let loading: Promise<Axe> | undefined;

function loadAxe(): Promise<Axe> {
  loading ??= new Promise<Axe>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = '/node_modules/axe-core/axe.min.js';
    script.onload = () => resolve((window as unknown as { axe: Axe }).axe);
    script.onerror = () => reject(new Error('could not load /node_modules/axe-core/axe.min.js'));
    document.head.append(script);
  });
  return loading;
}

/**
 * Page-level rules are off: a lone component in a test page has no `<main>`, landmark or `<h1>` of its
 * own, and demanding them would test the page, not the card.
 */
const PAGE_RULES = ['region', 'landmark-one-main', 'page-has-heading-one', 'html-has-lang', 'document-title'];

export async function checkA11y(el: Element, what: string): Promise<void> {
  const axe = await loadAxe();
  const rules = Object.fromEntries(PAGE_RULES.map((id) => [id, { enabled: false }]));
  const result = await axe.run(el, { rules, resultTypes: ['violations'] });
  if (result.violations.length === 0) return;
  const lines = result.violations.map(
    (v) =>
      `- ${v.id} (${v.impact}): ${v.help}\n` +
      v.nodes.map((n) => `    ${JSON.stringify(n.target)} ${n.failureSummary?.replace(/\n/g, ' ') ?? ''}`).join('\n'),
  );
  throw new Error(`axe found ${result.violations.length} violation(s) in ${what}:\n${lines.join('\n')}`);
}
