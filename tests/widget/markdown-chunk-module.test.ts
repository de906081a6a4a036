import { describeMarkdownChunk } from './helpers/markdown-chunk.js';

describeMarkdownChunk('ask-user-kit.js');
