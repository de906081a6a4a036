/** axe on a page of the suite, as the page-layout and MCP cases run it. */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

const AXE = fileURLToPath(new URL('../../../node_modules/axe-core/axe.min.js', import.meta.url));

interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: Array<{ target: unknown }>;
}

/**
 * axe on the whole document (or on the elements `include` selects), the experimental
 * label-content-name-mismatch rule (WCAG 2.5.3) included.
 */
export async function axeViolations(page: Page, include?: string): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) {
    // A page whose content security policy refuses inline scripts (an answer link's, §13) gets axe through
    // the DevTools protocol instead, which that policy does not govern; the page's own scripts stay under it.
    await page.addScriptTag({ path: AXE }).catch(async () => page.evaluate(await readFile(AXE, 'utf8')));
  }
  const violations = await page.evaluate(async (selector) => {
    const axe = (window as unknown as { axe: { run(c: unknown, o: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const r = await axe.run(selector ? { include: [[selector]] } : document, {
      rules: { 'label-content-name-mismatch': { enabled: true } },
      resultTypes: ['violations'],
    });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target) }));
  }, include);
  return violations.map((v) => `${v.id} (${v.impact}): ${JSON.stringify(v.nodes)}`);
}
