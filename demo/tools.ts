/** The demo's one ordinary tool, so a run shows a normal tool call next to ask_user. */
import type { LoopTool } from 'ask-user-kit/plugin/loop';
import { LIST_TEST_SUITES, TEST_SUITES } from './scripted-model/index.js';

export const listTestSuites: LoopTool = {
  name: LIST_TEST_SUITES,
  description: 'List the test suites of the project (id, label, description).',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  run: () => JSON.stringify({ suites: TEST_SUITES }),
};

export const demoTools: LoopTool[] = [listTestSuites];
