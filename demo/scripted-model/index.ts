/** The demo's embedded model: the offline assistant served as an OpenAI-compatible endpoint on loopback. */
import { createAssistant, type AssistantOptions } from './assistant.js';
import { startChatCompletionsServer, type ChatCompletionsServer } from './chat-completions-server.js';

export { createAssistant, replyToAnswer, LIST_TEST_SUITES } from './assistant.js';
export { TEST_SUITES, questionFor, topicOf, langOf } from './questions.js';
export { DEPLOY_PREVIEW, DELETE_BRANCH, deployPlanOf, replyToDeploy } from './deploy.js';
export * from './chat-completions-server.js';

export const SCRIPTED_MODEL_NAME = 'ask-user-kit-scripted';

export function startScriptedAssistant(options: AssistantOptions & { port?: number } = {}): Promise<ChatCompletionsServer> {
  const { port = 0, ...assistant } = options;
  return startChatCompletionsServer({ port, respond: createAssistant(assistant) });
}
