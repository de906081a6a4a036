/** The adapters the HTTP benchmark serves, each against its own framework's bare routes. */
export const FRAMEWORKS = ['koa', 'express', 'hono'] as const;
export type Framework = (typeof FRAMEWORKS)[number];
