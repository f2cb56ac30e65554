/**
 * The end-to-end test harness: `startTestBot` and its helpers. The one stack builder lives in
 * dev/testing/bot-stack.ts, shared with the offline demo (`npm run demo`), which must not depend on
 * test code; tests import it from here. See test/harness/README.md.
 */
export * from '../../dev/testing/bot-stack.js';
