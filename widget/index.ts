/**
 * The widget's public surface (package.json `exports["./widget"]`, built into dist/widget/). Importing it
 * registers `<ask-user-card>` and `<ask-user-provider>`; anything not re-exported here is internal.
 */
export * from './ask-user-card.js';
export * from './ask-user-provider.js';
export * from './context.js';
export * from './events.js';
export * from './strings.js';
export * from './chat-events.js';
export * from './sse-reader.js';
export * from './client.js';
