/**
 * Workspace keys and the store's key layout. Every key starts with a root (default
 * `drm-chatops`, or the `namespace` option, e.g. a unique one per test run):
 *
 *   <root>:installations:<ws>            encrypted Bolt installation (JWE)
 *   <root>:credentials:<ws>              encrypted service credentials (JWE)
 *   <root>:settings:<ws>                 workspace settings (JSON)
 *   <root>:audit:<ws>                    audit list, newest first (Redis list / JSON array)
 *   <root>:docs.<ns>:<ws>:<id>           generic documents of feature modules
 *   <root>:idx:docs.<ns>:<ws>            index of document ids (Redis set / JSON array)
 *   <root>:idx:installations             workspaces with an installation
 *   <root>:idx:credentials               workspaces with credentials
 *   <root>:meta:docns                    document namespaces ever written (for purgeWorkspace)
 *   <root>:lease:<name>                  lease holder (Redis only; in-process elsewhere)
 *
 * JSON values start with their schema version, `{"_v":N,...}` (./versions.ts); the applied
 * migrations are the document `<root>:docs.store-meta:_global:migrations` (./migrations.ts).
 *
 * Workspace keys and namespaces are restricted to characters that cannot contain the ':'
 * separator, so one workspace's keys can never alias another's.
 */
import type { WorkspaceKey } from './types.js';

const WORKSPACE_RE = /^[A-Za-z0-9_-]{1,64}$/;
const NAMESPACE_RE = /^[a-z0-9][a-z0-9_-]{0,47}$/;
const ROOT_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
// Ids and lease names: printable, no whitespace or control characters, bounded.
const ID_RE = /^[^\s\p{Cc}]{1,200}$/u;

export const DEFAULT_ROOT = 'drm-chatops';

/** What Bolt hands us: an Installation, an InstallationQuery or a request context. */
export interface WorkspaceSource {
  isEnterpriseInstall?: boolean;
  enterpriseId?: string;
  teamId?: string;
  team?: { id?: string } | undefined;
  enterprise?: { id?: string } | undefined;
}

/**
 * The workspace key: the enterprise id for org-wide installs, otherwise the team id.
 * Throws when neither is present (a malformed Bolt payload).
 */
export function workspaceKeyOf(src: WorkspaceSource): WorkspaceKey {
  const enterpriseId = src.enterpriseId ?? src.enterprise?.id;
  const teamId = src.teamId ?? src.team?.id;
  const key = src.isEnterpriseInstall && enterpriseId ? enterpriseId : (teamId ?? enterpriseId);
  if (!key) throw new Error('Cannot tell the workspace: neither a team id nor an enterprise id was given');
  return assertWorkspaceKey(key);
}

export function assertWorkspaceKey(key: string): WorkspaceKey {
  if (!WORKSPACE_RE.test(key)) {
    throw new Error(
      `Invalid workspace key ${JSON.stringify(key.slice(0, 70))}: expected a Slack team or enterprise id`,
    );
  }
  return key;
}

export function assertNamespace(ns: string): string {
  if (!NAMESPACE_RE.test(ns)) {
    throw new Error(
      `Invalid document namespace ${JSON.stringify(ns.slice(0, 60))}: use lower-case letters, digits, '-' or '_' (max 48)`,
    );
  }
  return ns;
}

export function assertId(id: string, what = 'document id'): string {
  if (!ID_RE.test(id)) {
    throw new Error(`Invalid ${what} ${JSON.stringify(id.slice(0, 60))}: 1-200 characters without spaces`);
  }
  return id;
}

export function assertRoot(root: string): string {
  if (!ROOT_RE.test(root)) {
    throw new Error(
      `Invalid store namespace ${JSON.stringify(root.slice(0, 70))}: letters, digits, '.', '-', '_'`,
    );
  }
  return root;
}

/** Builds every key of the layout above for one root. */
export class KeySpace {
  constructor(readonly root: string = DEFAULT_ROOT) {
    assertRoot(root);
  }
  installation(ws: WorkspaceKey): string {
    return `${this.root}:installations:${assertWorkspaceKey(ws)}`;
  }
  credentials(ws: WorkspaceKey): string {
    return `${this.root}:credentials:${assertWorkspaceKey(ws)}`;
  }
  settings(ws: WorkspaceKey): string {
    return `${this.root}:settings:${assertWorkspaceKey(ws)}`;
  }
  audit(ws: WorkspaceKey): string {
    return `${this.root}:audit:${assertWorkspaceKey(ws)}`;
  }
  doc(ns: string, ws: WorkspaceKey, id: string): string {
    return `${this.root}:docs.${assertNamespace(ns)}:${assertWorkspaceKey(ws)}:${assertId(id)}`;
  }
  docIndex(ns: string, ws: WorkspaceKey): string {
    return `${this.root}:idx:docs.${assertNamespace(ns)}:${assertWorkspaceKey(ws)}`;
  }
  installationsIndex(): string {
    return `${this.root}:idx:installations`;
  }
  credentialsIndex(): string {
    return `${this.root}:idx:credentials`;
  }
  docNamespaces(): string {
    return `${this.root}:meta:docns`;
  }
  lease(name: string): string {
    return `${this.root}:lease:${assertId(name, 'lease name')}`;
  }
  ping(): string {
    return `${this.root}:meta:ping`;
  }
}
