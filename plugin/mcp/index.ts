/**
 * Public entry of `ask-user-kit/plugin/mcp`: MCP elicitation through the card (contract §10) for a host
 * that is an MCP client.
 */
export {
  mcpElicitation,
  ElicitationBridge,
  type McpCallOptions,
  type McpCallResult,
  type McpElicitation,
  type McpElicitationOptions,
  type McpSession,
} from './elicitation-bridge.js';
export { McpSessionClients, type McpSessionClientsOptions } from './session-clients.js';
export { toolOutputOf } from './tool-output.js';
export { mcpApprovalPolicy } from './tool-approval.js';
export {
  contentFromAnswers,
  formFromElicitation,
  linkFromElicitation,
  ELICITATION_QUESTIONS,
  type MappedForm,
  type PropertyPlan,
} from './elicitation-form.js';
