/** axe on a page of the suite, as the page-layout and MCP cases run it. */
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

const AXE = fileURLToPath(new URL('../../../node_modules/axe-core/axe.min.js', import.meta.url));

interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: Array<{ target: unknown }>;
}

/** axe on the whole document, the experimental label-content-name-mismatch rule (WCAG 2.5.3) included. */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(c: unknown, o: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const r = await axe.run(document, { rules: { 'label-content-name-mismatch': { enabled: true } }, resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target) }));
  });
  return violations.map((v) => `${v.id} (${v.impact}): ${JSON.stringify(v.nodes)}`);
}
