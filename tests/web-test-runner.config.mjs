// Browser tests in Debian's Chromium (never a downloaded browser). Flags: what headless Chromium needs as
// root on a machine without outside network.
import { chromeLauncher } from '@web/test-runner-chrome';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { defaultReporter, summaryReporter } from '@web/test-runner';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countsReporter } from './helpers/counts-reporter.mjs';

const executablePath =
  process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => existsSync(p));
if (!executablePath) throw new Error('No Chromium found: install Debian\'s "chromium" or set CHROMIUM_PATH.');

export default {
  rootDir: fileURLToPath(new URL('..', import.meta.url)),
  // tests/widget/build/ tests the bundles' build steps in Node (tests/run-node.sh), not in the browser.
  files: ['tests/widget/**/*.test.ts', '!tests/widget/build/**'],
  nodeResolve: true,
  concurrency: 2,
  testFramework: { config: { timeout: 10000 } },
  testsFinishTimeout: 300000,
  plugins: [esbuildPlugin({ ts: true, tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) })],
  browsers: [
    chromeLauncher({
      launchOptions: {
        executablePath,
        headless: true,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
          '--disable-quic',
          `--user-data-dir=${mkdtempSync(join(tmpdir(), 'wtr-chromium-'))}`,
        ],
      },
    }),
  ],
  reporters: [process.env.CI ? summaryReporter({ flatten: true }) : defaultReporter(), countsReporter()],
};
