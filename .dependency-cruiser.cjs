/**
 * Architecture rules, checked by `npm run lint` (dependency-cruiser). The layers depend one way:
 * api -> store -> watch -> ops -> slack (each may import the ones before it, never after), the
 * Slack layer's features never import each other (shared code lives in src/slack/kit/), and the
 * product (src/) never imports the tooling (dev/) or the tests, and the tooling never imports the
 * tests.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Import cycles make load order fragile and hide layering mistakes.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'lower-layers-know-no-slack',
      severity: 'error',
      comment: 'api, store, watch and ops are Slack-free: they never import src/slack.',
      from: { path: '^src/(api|store|watch|ops)/' },
      to: { path: '^src/slack/' },
    },
    {
      name: 'api-is-the-bottom',
      severity: 'error',
      comment: 'The typed API clients know nothing of the store, the watcher or the ops.',
      from: { path: '^src/api/' },
      to: { path: '^src/(store|watch|ops)/' },
    },
    {
      name: 'store-below-watch-and-ops',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/(watch|ops)/' },
    },
    {
      name: 'watch-below-ops',
      severity: 'error',
      from: { path: '^src/watch/' },
      to: { path: '^src/ops/' },
    },
    {
      name: 'features-are-independent',
      severity: 'error',
      comment: 'A feature never imports another feature: shared code goes to src/slack/kit/.',
      from: { path: '^src/slack/features/([^/]+)/' },
      to: { path: '^src/slack/features/([^/]+)/', pathNot: '^src/slack/features/$1/' },
    },
    {
      name: 'only-main-imports-app',
      severity: 'error',
      comment: 'The Bolt app is assembled in one place; features register through the kit.',
      from: { path: '^src/', pathNot: '^src/main\\.ts$' },
      to: { path: '^src/slack/app\\.ts$' },
    },
    {
      name: 'product-imports-no-tooling',
      severity: 'error',
      comment: 'Nothing in src imports the emulator, fake Slack, demo or tests.',
      from: { path: '^src/' },
      to: { path: '^(dev|test|bench|scripts)/' },
    },
    {
      name: 'tooling-imports-no-tests',
      severity: 'error',
      comment:
        'dev/ (emulator, fake Slack, demo, the one stack builder in dev/testing/) runs without the tests: npm run demo and the fault children never load a test file. Tests import dev/, not the other way.',
      from: { path: '^dev/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
