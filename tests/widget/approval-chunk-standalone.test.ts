import { describeApprovalChunk } from './helpers/approval-chunk.js';

describeApprovalChunk('ask-user-kit.standalone.js', 'ask-user-kit.standalone-approval-card.js');
