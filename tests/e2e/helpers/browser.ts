/** Debian's Chromium driven by playwright-core; never a downloaded browser. */
import { chromium, type Browser } from 'playwright-core';
import { existsSync } from 'node:fs';

export function chromiumPath(): string {
  const found =
    process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => existsSync(p));
  if (!found) throw new Error('No Chromium found: install Debian\'s "chromium" (bash tests/ensure-tools.sh) or set CHROMIUM_PATH.');
  return found;
}

export interface LaunchedBrowser {
  browser: Browser;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<LaunchedBrowser> {
  // playwright gives every launch a fresh temporary profile (its own --user-data-dir) and removes it on close.
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
  return {
    browser,
    async close() {
      await browser.close().catch(() => {});
    },
  };
}
