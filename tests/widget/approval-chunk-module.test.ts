import { describeApprovalChunk } from './helpers/approval-chunk.js';

describeApprovalChunk('ask-user-kit.js', 'ask-user-kit.approval-card.js');
