/**
 * Architecture rules, checked by `npm run lint` (dependency-cruiser). The layers depend one way:
 * api -> store -> watch -> notices -> ops -> slack (each may import the ones before it, never after), the
 * Slack layer's features never import each other (shared code lives in src/slack/shared/, machinery in
 * src/slack/kit/, which never imports shared/) and nothing
 * outside them imports one except through the feature list at the composition point, and the
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
      from: { path: '^(src|dev)/' },
      to: { circular: true },
    },
    {
      name: 'lower-layers-know-no-slack',
      severity: 'error',
      comment: 'api, store, watch, notices and ops are Slack-free: they never import src/slack.',
      from: { path: '^src/(api|store|watch|notices|ops)/' },
      to: { path: '^src/slack/' },
    },
    {
      name: 'api-is-the-bottom',
      severity: 'error',
      comment: 'The typed API clients know nothing of the store, the watcher or the ops.',
      from: { path: '^src/api/' },
      to: { path: '^src/(store|watch|notices|ops)/' },
    },
    {
      name: 'store-below-watch-and-ops',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/(watch|notices|ops)/' },
    },
    {
      name: 'watch-below-notices-and-ops',
      severity: 'error',
      comment: 'The job watcher (src/watch) knows nothing of the notices (outcomes, alerts, digests) nor the ops.',
      from: { path: '^src/watch/' },
      to: { path: '^src/(notices|ops)/' },
    },
    {
      name: 'notices-below-ops',
      severity: 'error',
      comment: 'The notices (src/notices: request outcomes, license alerts, digests) use the watcher\'s delivery machinery and never the ops.',
      from: { path: '^src/notices/' },
      to: { path: '^src/ops/' },
    },
    {
      name: 'features-are-independent',
      severity: 'error',
      comment:
        'A feature never imports another feature: what two features share goes to src/slack/shared/<topic>/ (feature code) or src/slack/kit/ (machinery every feature uses).',
      from: { path: '^src/slack/features/([^/]+)/' },
      to: { path: '^src/slack/features/([^/]+)/', pathNot: '^src/slack/features/$1/' },
    },
    {
      name: 'kit-imports-no-shared-feature-code',
      severity: 'error',
      comment:
        'The kit (src/slack/kit/) is the machinery every feature uses; src/slack/shared/ is feature code two or more features share, built on the kit. The kit never imports it.',
      from: { path: '^src/slack/kit/' },
      to: { path: '^src/slack/shared/' },
    },
    {
      name: 'shared-imports-no-feature',
      severity: 'error',
      comment: 'Shared feature code (src/slack/shared/) serves features and never imports one.',
      from: { path: '^src/slack/shared/' },
      to: { path: '^src/slack/features/' },
    },
    {
      name: 'features-only-through-the-list',
      severity: 'error',
      comment:
        'Outside src/slack/features/ nothing imports a feature folder: the runtimes, the kit and main.ts get what a feature provides (renderers, ports, the Home refresh, Home entry points, commands) from the Feature declarations of the ONE list, features/index.ts, and features reach the runtimes only through kit hooks (kit/runtime/hooks.ts, kit/runtime/notify-kick.ts). features-are-independent sees direct imports only; this rule closes the indirect path (feature A -> a runtime -> feature B).',
      from: { path: '^src/', pathNot: '^src/slack/features/' },
      to: { path: '^src/slack/features/', pathNot: '^src/slack/features/index\\.ts$' },
    },
    {
      name: 'features-reach-runtimes-through-kit-hooks',
      severity: 'error',
      comment:
        'A feature never imports the background runtimes (they are wired with every feature): it calls the kit hooks the runtimes register per app (kit/runtime/hooks.ts: credentials saved, wake a site, watcher status; kit/runtime/notify-kick.ts).',
      from: { path: '^src/slack/features/' },
      to: { path: '^src/slack/(watch-runtime|notify-runtime|notify-ports|poster)\\.ts$' },
    },
    {
      name: 'feature-list-only-at-composition',
      severity: 'error',
      comment:
        'The feature list (features/index.ts) is imported by the composition only: src/main.ts (startBot hands FEATURES to the watch and notify runtimes, which take the list as an argument and import no feature) and src/slack/app.ts (its default `register` wires FEATURES to Bolt with registerFeatures, so every app built by createSlackApp, e.g. the test stack, has the same listeners as production).',
      from: { path: '^src/', pathNot: '^src/(main\\.ts|slack/app\\.ts|slack/features/)' },
      to: { path: '^src/slack/features/index\\.ts$' },
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
