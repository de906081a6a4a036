import { describeMarkdownChunk } from './helpers/markdown-chunk.js';

// The standalone file loads the same chunk from beside itself.
describeMarkdownChunk('ask-user-kit.standalone.js');
