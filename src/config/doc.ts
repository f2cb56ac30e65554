/**
 * The generated documentation's source: the variable table of docs/configuration.md and
 * .env.example (CONFIG_DOC, configDocMarkdown; `npm run readme` writes them, scripts/readme.ts),
 * and the least a set-up needs by mode (MINIMUM_VARIABLES), which the README and the docs name.
 */
import { VARIABLES } from './variables.js';

/**
 * The least a set-up needs, by mode: README's path, .env.example and docs/configuration.md name
 * these (tests check it). The two URLs come from the service provider; `/dwm setup` cannot save
 * keys for a host the operator did not configure (src/api/origins.ts).
 */
export const MINIMUM_VARIABLES = {
  socket: ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN', 'ENCRYPTION_KEY', 'DWM_BASE_URL', 'SERVICE_API_BASE_URL'],
  http: ['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'ENCRYPTION_KEY', 'DWM_BASE_URL', 'SERVICE_API_BASE_URL'],
} as const;

/** The README configuration table (name, required, default, description), from VARIABLES. */
export const CONFIG_DOC: ReadonlyArray<{
  name: string;
  required: string;
  default: string;
  description: string;
}> = VARIABLES.map((v) => ({
  name: v.name,
  required: v.required,
  default: v.default ?? '',
  description: v.description,
}));

/** Markdown rendering of CONFIG_DOC. */
export function configDocMarkdown(): string {
  const rows = CONFIG_DOC.map(
    (r) => `| \`${r.name}\` | ${r.required} | ${r.default ? `\`${r.default}\`` : ''} | ${r.description} |`,
  );
  return ['| Variable | Required | Default | Description |', '|---|---|---|---|', ...rows].join('\n');
}
