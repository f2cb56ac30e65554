/** A Redis for tests: the starter lives in dev/testing/redis.ts (the stack builder uses it too). */
export * from '../../dev/testing/redis.js';
