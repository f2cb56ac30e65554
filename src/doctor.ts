/**
 * `npm run doctor`: the read-only service check (src/ops/doctor.ts) with the environment's
 * credentials, or with a workspace's saved ones (`--workspace T0123ABCD`, read from the store
 * with ENCRYPTION_KEY). Prints a short report and the .env lines to add; exits 1 when a setting
 * is needed or a check failed, 2 when it cannot run (configuration, no credentials).
 */
import { pathToFileURL } from 'node:url';
import { createApi } from './api/index.js';
import type { WorkspaceCredentials } from './api/types.js';
import { apiOptionsOf, ConfigError, type Env, loadConfig } from './config.js';
import { loadEnvFile } from './env-file.js';
import { createLogger, registerSecret } from './log.js';
import { type DoctorReport, type DoctorStatus, doctorSettingsOf, runDoctor } from './ops/doctor.js';
import { stepSentenceText } from './slack/kit/blocks/next-step.js';
import { createStore, StoreConfigError } from './store/index.js';

const STATUS_WORD: Record<DoctorStatus, string> = {
  ok: 'ok',
  info: 'note',
  setting: 'SETTING NEEDED',
  failed: 'FAILED',
  'not-observed': 'not observed',
};

/** The report as plain text (a next step naming a command worded as in Slack): one line per point ("point: status. reading. next"), then the .env lines. */
export function doctorText(report: DoctorReport): string {
  const width = Math.max(...report.findings.map((f) => f.point.length));
  const lines = report.findings.map(
    (f) =>
      `${f.point.padEnd(width)}  ${STATUS_WORD[f.status].padEnd(14)}  ${f.reading}${f.next ? `. ${stepSentenceText(f.next)}` : ''}`,
  );
  const out = ['Service check (read-only: GET calls only)', '', ...lines, ''];
  if (report.envLines.length) {
    out.push('Add to .env (then restart the bot):', ...report.envLines, '');
  } else if (!report.needsAction) {
    out.push('No setting needed: the bot reads this service as it answers.', '');
  }
  return out.join('\n');
}

export interface DoctorCliResult {
  code: number;
  text: string;
}

const USAGE = 'Usage: npm run doctor [-- --workspace T0123ABCD]';

/**
 * `--workspace T0123ABCD` or `--workspace=T0123ABCD`; anything else is refused (a check of the
 * environment's credentials when a workspace's were asked for would answer another question).
 */
function workspaceArg(argv: readonly string[]): { workspace: string | undefined } | { error: string } {
  let workspace: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const m = /^--workspace(?:=(.*))?$/.exec(a);
    if (!m) return { error: `Unknown argument "${a.slice(0, 60)}".\n${USAGE}` };
    const v = m[1] ?? argv[++i];
    if (!v || v.startsWith('--')) return { error: `--workspace needs a workspace id (T0123ABCD).\n${USAGE}` };
    workspace = v;
  }
  return { workspace };
}

/** Run the check for the environment (or a workspace's saved credentials); never exits. */
export async function doctorCli(argv: readonly string[], env: Env): Promise<DoctorCliResult> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return { code: 2, text: `The check cannot run.\n${err.message}\n` };
    throw err;
  }
  registerSecret(
    config.envCredentials?.watermarking?.accessKey,
    config.envCredentials?.service?.secretKey,
    config.encryptionKey,
  );
  const parsed = workspaceArg(argv);
  if ('error' in parsed) return { code: 2, text: `${parsed.error}\n` };
  const workspace = parsed.workspace;
  let credentials: WorkspaceCredentials | undefined = config.envCredentials;
  if (workspace) {
    let store: Awaited<ReturnType<typeof createStore>>;
    try {
      store = await createStore({
        url: config.storeUrl,
        encryptionKey: config.encryptionKey,
        previousEncryptionKeys: config.previousEncryptionKeys,
      });
    } catch (err) {
      if (err instanceof StoreConfigError)
        return { code: 2, text: `The check cannot run.\n${err.message}\n` };
      throw err;
    }
    try {
      credentials = (await store.credentials.get(workspace))?.credentials;
    } finally {
      await store.close();
    }
    registerSecret(credentials?.watermarking?.accessKey, credentials?.service?.secretKey);
    if (!credentials)
      return {
        code: 2,
        text: `Workspace ${workspace} has no saved credentials: run /dwm setup there first.\n`,
      };
  }
  if (!credentials) {
    return {
      code: 2,
      text: "No credentials to check: set the DWM_* and/or SERVICE_API_* variables (docs/configuration.md), or give --workspace T0123ABCD to use a workspace's saved ones.\n",
    };
  }
  const api = createApi(apiOptionsOf(config, createLogger({ level: 'silent' })));
  try {
    const report = await runDoctor({ api, credentials, settings: doctorSettingsOf(config), now: Date.now });
    return { code: report.needsAction ? 1 : 0, text: doctorText(report) };
  } finally {
    await api.close();
  }
}

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  loadEnvFile();
  doctorCli(process.argv.slice(2), process.env).then(
    (r) => {
      process.stdout.write(r.text);
      process.exit(r.code);
    },
    (err: unknown) => {
      process.stderr.write(`The check failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(2);
    },
  );
}
