/**
 * Serves the built page (demo/dist) and the widget's standalone bundle (at /widget/, which an answer link's
 * page loads) — a few files, so a small function instead of another dependency; each server wraps it.
 */
import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
  '.ico': 'image/x-icon',
  '.map': 'application/json; charset=utf-8',
};

export interface StaticFile {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}

/** The built page's file for a GET of `path`, a 503 when the page is not built, or undefined to go on. */
export async function staticFile(root: string, method: string, path: string): Promise<StaticFile | undefined> {
  const base = normalize(root + sep);
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  if (path.startsWith('/api/')) return undefined;
  let rel: string;
  try {
    rel = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  const file = normalize(join(base, rel.endsWith('/') ? `${rel}index.html` : rel));
  if (!file.startsWith(base)) return undefined; // `..` escaping the root
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) {
    if (rel !== '/' && rel !== '/index.html') return undefined;
    return {
      status: 503,
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
      body: `The demo page is not built (${file} is missing). Run "npm run demo", which builds it, or "npx vite build -c demo/vite.config.ts".`,
    };
  }
  return {
    status: 200,
    headers: {
      'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      // The page and the service worker are checked each time; the hashed assets may be kept a while.
      'Cache-Control': file.endsWith('index.html') || file === join(base, 'sw.js') ? 'no-cache' : 'public, max-age=300',
    },
    body: await readFile(file),
  };
}

/** Where the demo serves the widget's standalone bundle: the `widgetScript` of its answer links (§13). */
export const WIDGET_SCRIPT = '/widget/ask-user-kit.standalone.js';
/** The bundle and the chunks it loads from beside it (lazy parts, rich text), and nothing else of the folder. */
const WIDGET_FILE = /^\/widget\/(ask-user-kit\.(?:standalone(?:-[a-z0-9-]+)?|markdown)\.js)$/;

/**
 * The standalone bundle's folder as a host finds it: the `./widget/standalone` export of the installed
 * package's package.json (here the repository's own build, `npx vite build`).
 */
export function standaloneWidgetDir(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('ask-user-kit/package.json');
  const exports = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { default: string }> }).exports;
  return dirname(join(dirname(manifest), exports['./widget/standalone']!.default));
}

/** A file of the standalone bundle for a GET of `/widget/<name>`, a 503 when the bundle is not built, or undefined to go on. */
export async function widgetFile(dir: string, method: string, path: string): Promise<StaticFile | undefined> {
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  const name = WIDGET_FILE.exec(path)?.[1];
  if (!name) return undefined;
  const body = await readFile(join(dir, name)).catch(() => undefined);
  if (!body) {
    if (`/widget/${name}` !== WIDGET_SCRIPT) return undefined;
    return {
      status: 503,
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
      body: 'The widget bundle is not built. Run "npx vite build" (npm run demo does).',
    };
  }
  return { status: 200, headers: { 'Content-Type': TYPES['.js']!, 'Cache-Control': 'no-cache' }, body };
}
