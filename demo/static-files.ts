/** Serves the built page (demo/dist) — a few files, so a small function instead of another dependency; each server wraps it. */
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

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
      'Cache-Control': file.endsWith('index.html') ? 'no-cache' : 'public, max-age=300',
    },
    body: await readFile(file),
  };
}
