/**
 * Public entry of `ask-user-kit/plugin/mcp`: MCP elicitation through the card (contract §10) for a host
 * that is an MCP client.
 */
export { mcpElicitation, type McpElicitation, type McpElicitationOptions } from './elicitation-bridge.js';
export {
  contentFromAnswers,
  formFromElicitation,
  linkFromElicitation,
  ELICITATION_QUESTIONS,
  type MappedForm,
  type PropertyPlan,
} from './elicitation-form.js';
