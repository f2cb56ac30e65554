/**
 * Per-app state. What the Slack layer keeps in memory between requests (the Web API clients, the
 * role caches, the uninstall hooks, the Home refreshes in flight...) belongs to ONE app, not to the
 * process: two apps in one process (tests, a second workspace deployment in the same node) never
 * share it, and a test's fresh dependencies start empty without resetting anything.
 *
 * An app is identified by its configuration object (`deps.config`, loaded once per app by main.ts,
 * the stack builder or a test): every `AppDeps` derived from it, e.g. `{ ...deps, store }` for
 * background work on the unbounded store, reaches the same state. The state is held weakly, so it
 * goes with the app.
 *
 *   const refreshesOf = appState(() => new Map<string, Refresh>());
 *   refreshesOf(deps).get(key);
 *
 * `create` runs on the app's first use, with the deps of that call.
 */
export function appState<T, D extends { config: object } = { config: object }>(
  create: (deps: D) => T,
): (deps: D) => T {
  const perApp = new WeakMap<object, T>();
  return (deps) => {
    let state = perApp.get(deps.config);
    if (state === undefined) {
      state = create(deps);
      perApp.set(deps.config, state);
    }
    return state;
  };
}
