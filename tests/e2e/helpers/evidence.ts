/**
 * One folder of evidence per acceptance case, `.evidence/e2e/<case>/` (gitignored): what the page
 * received on the wire, what the server logged, what the model was sent, and what the page looked like.
 * The folder is emptied when a case starts, so it never mixes two runs, and its path is printed so a
 * reader of a failed run knows where to look.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const EVIDENCE_ROOT = join(ROOT, '.evidence', 'e2e');

export interface Evidence {
  readonly dir: string;
  /** Writes `name` (text, JSON for objects, bytes for Buffers) and returns its path. */
  write(name: string, content: string | Buffer | object): Promise<string>;
  screenshot(page: Page, name: string): Promise<string>;
}

export async function openEvidence(caseName: string): Promise<Evidence> {
  const safe = caseName
    .replace(/[^a-z0-9._-]+/gi, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase();
  const dir = join(EVIDENCE_ROOT, safe);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  console.log(`evidence: ${relative(process.cwd(), dir) || dir}`);
  const write = async (name: string, content: string | Buffer | object) => {
    const file = join(dir, name);
    await mkdir(dirname(file), { recursive: true });
    const data = typeof content === 'string' || Buffer.isBuffer(content) ? content : JSON.stringify(content, null, 2) + '\n';
    await writeFile(file, data);
    return file;
  };
  return {
    dir,
    write,
    async screenshot(page, name) {
      const file = join(dir, name.endsWith('.png') ? name : `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
  };
}
