/**
 * The widget's public surface (package.json `exports["./widget"]`). Importing it registers the
 * `<ask-user-card>` element; everything not re-exported here is internal.
 */
export * from './chat-events.js';
export * from './sse-reader.js';
export * from './client.js';
