/** Fake Slack Web API for tests and the offline demo. See ./server.ts. */
export { validateMessageBlocks, validateView, viewAckProblems } from './blocks.js';
export {
  type FailureSpec,
  type FakeCall,
  type FakeChannelSpec,
  type FakeEphemeral,
  type FakeFile,
  type FakeMessage,
  type FakeResponse,
  FakeSlack,
  type FakeSlackOptions,
  type FakeUserSpec,
  type FakeView,
  type FakeWorkspaceSpec,
  startFakeSlack,
} from './server.js';
