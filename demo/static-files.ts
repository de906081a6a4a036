/** Serves the built page (demo/dist) — a few files, so a small handler instead of another dependency. */
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { Middleware } from 'koa';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
  '.ico': 'image/x-icon',
  '.map': 'application/json; charset=utf-8',
};

export function staticFiles(root: string): Middleware {
  const base = normalize(root + sep);
  return async function serveStatic(ctx, next) {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path.startsWith('/api/')) return next();
    let rel: string;
    try {
      rel = decodeURIComponent(ctx.path);
    } catch {
      return next();
    }
    const file = normalize(join(base, rel.endsWith('/') ? `${rel}index.html` : rel));
    if (!file.startsWith(base)) return next(); // `..` escaping the root
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) {
      if (rel === '/' || rel === '/index.html') {
        ctx.status = 503;
        ctx.type = 'text/plain';
        ctx.body = `The demo page is not built (${file} is missing). Run "npm run demo", which builds it, or "npx vite build -c demo/vite.config.ts".`;
        return;
      }
      return next();
    }
    ctx.type = TYPES[extname(file)] ?? 'application/octet-stream';
    ctx.set('Cache-Control', file.endsWith('index.html') ? 'no-cache' : 'public, max-age=300');
    ctx.body = await readFile(file);
  };
}
