/**
 * A recording fake of the Slack Web API on loopback, for tests and the offline demo.
 *
 * It answers with Slack's real response shapes and refuses what Slack refuses (unknown tokens,
 * another workspace's channels, Block Kit limits, expired trigger ids, channels the bot is not in,
 * archived channels, half of a surrogate pair in any text), tells a channel's sharing (Slack
 * Connect, pending, org-wide) in conversations.info, deletes the bot's own files (files.delete;
 * another's: cant_delete_file), records every call, and can be
 * scripted to fail (ratelimited + Retry-After, 5xx, any error string) for N calls. Point the bot
 * at it with SLACK_API_URL = fake.apiUrl.
 *
 * Routes: POST /api/<method>, POST /upload/<fileId> (files.uploadV2's upload step),
 * GET /files-pri/<team>-<file>/<name> (url_private, needs the bot token), POST /response/<id>.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hasLoneSurrogate, validateMessageBlocks, validateView } from './blocks.js';

type Obj = Record<string, unknown>;

export interface FakeUserSpec {
  id: string;
  name?: string;
  realName?: string;
  email?: string;
  /** IANA zone, default "UTC". */
  tz?: string;
  isAdmin?: boolean;
  isOwner?: boolean;
  isPrimaryOwner?: boolean;
  isBot?: boolean;
  deleted?: boolean;
  /** A multi-channel guest (users.info `is_restricted`). */
  isRestricted?: boolean;
  /** A single-channel guest (users.info `is_restricted` and `is_ultra_restricted`, as Slack sends). */
  isUltraRestricted?: boolean;
  /**
   * A user of another organisation seen through a Slack Connect channel: users.info answers their
   * home team as `team_id` (and `is_admin` etc. describe that organisation).
   */
  homeTeamId?: string;
  /** Their Enterprise Grid (`enterprise_user`); default the workspace's for its own users. */
  enterpriseId?: string;
  /** users.info `is_stranger` (another organisation, no channel shared with this workspace). */
  isStranger?: boolean;
}

export interface FakeChannelSpec {
  id: string;
  name: string;
  /** Default true. */
  botIsMember?: boolean;
  isPrivate?: boolean;
  isArchived?: boolean;
  /** User ids in the channel; when omitted every workspace user is considered a member. */
  members?: string[];
  /**
   * Sharing as conversations.info tells it: 'external' (Slack Connect: is_ext_shared, is_shared,
   * shared_team_ids with the other team), 'pending' (an invitation to another organisation not yet
   * accepted: is_pending_ext_shared, pending_shared), 'org' (shared with workspaces of the same
   * Enterprise organisation: is_org_shared, is_shared). Default: not shared.
   */
  sharing?: 'external' | 'pending' | 'org';
  /** The other team of an 'external' / 'pending' share (default T0PARTNER). */
  sharedWith?: string;
}

export interface FakeWorkspaceSpec {
  teamId: string;
  teamName?: string;
  domain?: string;
  enterpriseId?: string;
  botToken: string;
  botId?: string;
  botUserId?: string;
  appId?: string;
  users?: FakeUserSpec[];
  channels?: FakeChannelSpec[];
  usergroups?: { id: string; users: string[] }[];
  /**
   * The bot scopes granted at install: every answer to the workspace's token then carries them in
   * the `x-oauth-scopes` header, as Slack's does. Unset: no header (the bot cannot tell).
   */
  scopes?: string[];
}

function kindOfToken(token: string): FakeCall['tokenKind'] {
  if (token.startsWith('xoxb-')) return 'bot';
  if (token.startsWith('xwfp-')) return 'function';
  if (token.startsWith('xoxp-')) return 'user';
  if (token.startsWith('xapp-')) return 'app';
  return undefined;
}

export interface FakeCall {
  seq: number;
  /** Web API method, "upload" (file bytes), "download" (url_private) or "response_url". */
  method: string;
  /** Team of the token used (undefined when the token was missing or unknown). */
  teamId?: string;
  /** The kind of token the call was made with (never the token itself). */
  tokenKind?: 'bot' | 'function' | 'user' | 'app';
  /** Arguments with JSON-encoded fields (blocks, view, files...) decoded; secrets removed. */
  args: Obj;
  at: number;
  status: number;
  ok: boolean;
  error?: string;
  response?: unknown;
}

export interface FakeMessage {
  channel: string;
  ts: string;
  threadTs?: string;
  teamId: string;
  user: string;
  botId: string;
  text?: string;
  blocks?: unknown[];
  files?: string[];
  edited?: boolean;
  deleted?: boolean;
  /** Message metadata as posted (`metadata` of chat.postMessage). */
  metadata?: { event_type: string; event_payload: unknown };
  /** A thread reply also sent to the channel (`reply_broadcast`). */
  replyBroadcast?: boolean;
  /** How it got there. */
  via: 'chat.postMessage' | 'files.completeUploadExternal' | 'response_url';
}

export interface FakeEphemeral {
  channel: string;
  user: string;
  teamId: string;
  ts: string;
  text?: string;
  blocks?: unknown[];
  via: 'chat.postEphemeral' | 'response_url';
}

export interface FakeView {
  id: string;
  teamId: string;
  userId: string;
  type: 'modal' | 'home';
  hash: string;
  rootViewId: string;
  previousViewId: string | null;
  externalId?: string;
  callbackId?: string;
  privateMetadata?: string;
  title?: unknown;
  blocks: unknown[];
  /** Raw view as last sent by the bot. */
  view: Obj;
  via: string;
  closed?: boolean;
}

export interface FakeResponse {
  id: string;
  teamId: string;
  body: Obj;
  at: number;
  ok: boolean;
  error?: string;
}

export interface FakeFile {
  id: string;
  teamId: string;
  name: string;
  title: string;
  mimetype: string;
  data: Buffer;
  user: string;
  uploaded: boolean;
  channels: string[];
  created: number;
}

export interface FailureSpec {
  /** ok:false error string (default "internal_error"; "ratelimited" with status 429). */
  error?: string;
  /** HTTP status: 429 -> ratelimited with Retry-After; >= 500 -> a plain-text server error. */
  status?: number;
  retryAfterSeconds?: number;
  /** How many calls fail; default 1. */
  times?: number;
}

export interface FakeSlackOptions {
  /** Default 0 (ephemeral). Always binds 127.0.0.1. */
  port?: number;
  /** Clock for trigger expiry, ts values and the 1 msg/s check. Default Date.now. */
  now?: () => number;
  /** OAuth app credentials checked by oauth.v2.access (unchecked when omitted). */
  clientId?: string;
  clientSecret?: string;
  /** Trigger id lifetime, default 3000 ms (Slack's). */
  triggerTtlMs?: number;
  /** Where GET /oauth/v2/authorize sends the browser when the request names no redirect_uri. */
  oauthRedirectUri?: string;
}

interface Workspace
  extends Required<Omit<FakeWorkspaceSpec, 'enterpriseId' | 'users' | 'channels' | 'usergroups' | 'scopes'>> {
  enterpriseId?: string;
  scopes?: string[];
  users: Map<string, FakeUserSpec>;
  channels: Map<string, FakeChannelSpec>;
  usergroups: Map<string, string[]>;
}

interface Trigger {
  teamId: string;
  userId: string;
  issuedAt: number;
  used: boolean;
}

interface ResponseUrlState {
  teamId: string;
  channel?: string;
  userId?: string;
  messageTs?: string;
  createdAt: number;
  uses: number;
}

interface OAuthCode {
  teamId: string;
  userId: string;
  scope: string;
  isEnterpriseInstall: boolean;
}

class SlackApiError extends Error {
  constructor(
    readonly error: string,
    readonly extra: Obj = {},
  ) {
    super(error);
  }
}

const JSON_FIELDS = ['blocks', 'attachments', 'view', 'files', 'metadata', 'unfurl_links', 'outputs'];

/** UTC offset of a zone, seconds (Slack's tz_offset). */
function tzOffsetSeconds(tz: string, at: number): number {
  try {
    const part = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' })
      .formatToParts(new Date(at))
      .find((p) => p.type === 'timeZoneName')?.value;
    const m = /GMT([+-])(\d{2}):(\d{2})/.exec(part ?? '');
    if (!m) return 0;
    const s = Number(m[2]) * 3600 + Number(m[3]) * 60;
    return m[1] === '-' ? -s : s;
  } catch {
    return 0;
  }
}

function isMetadata(v: unknown): v is { event_type: string; event_payload: unknown } {
  return typeof v === 'object' && v !== null && typeof (v as Obj).event_type === 'string';
}

/** Slack's oldest/latest window (exclusive unless inclusive is set). */
function inRange(ts: string, a: Obj): boolean {
  const t = Number(ts);
  const inclusive =
    a.inclusive === true || a.inclusive === 'true' || a.inclusive === 1 || a.inclusive === '1';
  if (a.oldest !== undefined && a.oldest !== '') {
    const o = Number(a.oldest);
    if (inclusive ? t < o : t <= o) return false;
  }
  if (a.latest !== undefined && a.latest !== '') {
    const l = Number(a.latest);
    if (inclusive ? t > l : t >= l) return false;
  }
  return true;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export class FakeSlack {
  readonly url: string;
  readonly apiUrl: string;
  readonly port: number;
  private readonly server: Server;
  private readonly now: () => number;
  private readonly opts: FakeSlackOptions;
  private readonly events = new EventEmitter();
  private readonly workspaces = new Map<string, Workspace>();
  private readonly tokens = new Map<string, string>();
  /** Workflow step executions (function_executed): id -> team and state. */
  private readonly executions = new Map<
    string,
    { teamId: string; state: 'running' | 'completed' | 'failed' }
  >();
  private readonly recorded: FakeCall[] = [];
  private readonly msgs: FakeMessage[] = [];
  private readonly ephemeralMsgs: FakeEphemeral[] = [];
  private readonly views = new Map<string, FakeView>();
  private readonly viewOrder: string[] = [];
  private readonly triggers = new Map<string, Trigger>();
  private readonly responseUrls = new Map<string, ResponseUrlState>();
  private readonly responsesList: FakeResponse[] = [];
  private readonly files = new Map<string, FakeFile>();
  private readonly codes = new Map<string, OAuthCode>();
  private refusedCompletionTokens = new Set<string>();
  private readonly failures = new Map<
    string,
    Required<Omit<FailureSpec, 'retryAfterSeconds'>> & FailureSpec
  >();
  private readonly lastPost = new Map<string, number>();
  private readonly violations: { channel: string; ts: string; sinceLastMs: number }[] = [];
  private seq = 0;
  private lastTsMicros = 0;
  private idCounter = 0;

  private constructor(server: Server, opts: FakeSlackOptions) {
    this.server = server;
    this.opts = opts;
    this.now = opts.now ?? Date.now;
    const port = (server.address() as AddressInfo).port;
    this.port = port;
    this.url = `http://127.0.0.1:${port}`;
    this.apiUrl = `${this.url}/api/`;
    this.events.setMaxListeners(100);
    this.oauthRedirectUri = opts.oauthRedirectUri;
  }

  static async start(opts: FakeSlackOptions = {}): Promise<FakeSlack> {
    let fake: FakeSlack | undefined;
    const server = createServer((req, res) => {
      if (!fake) {
        res.writeHead(503).end();
        return;
      }
      fake.handle(req, res).catch((e: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`fake slack error: ${e instanceof Error ? e.message : String(e)}`);
      });
    });
    server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
    });
    fake = new FakeSlack(server, opts);
    return fake;
  }

  /** Where apps.connections.open sends a Socket Mode client (undefined: Socket Mode is off). */
  private socketModeUrl: string | undefined;

  /** Turn Socket Mode on: apps.connections.open answers with this WebSocket URL. */
  setSocketModeUrl(url: string | undefined): void {
    this.socketModeUrl = url;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // -----------------------------------------------------------------------------------------------
  // Configuration
  // -----------------------------------------------------------------------------------------------

  addWorkspace(spec: FakeWorkspaceSpec): void {
    const suffix = spec.teamId.replace(/^T/, '');
    const ws: Workspace = {
      teamId: spec.teamId,
      teamName: spec.teamName ?? `Team ${spec.teamId}`,
      domain: spec.domain ?? spec.teamId.toLowerCase(),
      botToken: spec.botToken,
      botId: spec.botId ?? `B${suffix}`,
      botUserId: spec.botUserId ?? `U${suffix}BOT`,
      appId: spec.appId ?? 'A0FAKEAPP',
      users: new Map(),
      channels: new Map(),
      usergroups: new Map(),
    };
    if (spec.enterpriseId) ws.enterpriseId = spec.enterpriseId;
    if (spec.scopes) ws.scopes = [...spec.scopes];
    this.workspaces.set(spec.teamId, ws);
    this.tokens.set(spec.botToken, spec.teamId);
    // The bot's own user, as users.info returns it.
    this.addUser(spec.teamId, { id: ws.botUserId, name: 'drm-chatops', isBot: true });
    for (const u of spec.users ?? []) this.addUser(spec.teamId, u);
    for (const c of spec.channels ?? []) this.addChannel(spec.teamId, c);
    for (const g of spec.usergroups ?? []) ws.usergroups.set(g.id, [...g.users]);
  }

  private ws(teamId: string): Workspace {
    const ws = this.workspaces.get(teamId);
    if (!ws) throw new Error(`fake slack: unknown workspace ${teamId}`);
    return ws;
  }

  addUser(teamId: string, user: FakeUserSpec): void {
    this.ws(teamId).users.set(user.id, { ...user });
  }

  /** A channel's name (as Slack shows `<#C…>`), from any workspace; undefined when unknown. */
  channelName(channelId: string): string | undefined {
    for (const ws of this.workspaces.values()) {
      const name = ws.channels.get(channelId)?.name;
      if (name) return name;
    }
    return undefined;
  }

  addChannel(teamId: string, channel: FakeChannelSpec): void {
    this.ws(teamId).channels.set(channel.id, { ...channel });
  }

  setBotMember(teamId: string, channelId: string, member: boolean): void {
    const ch = this.ws(teamId).channels.get(channelId);
    if (!ch) throw new Error(`fake slack: unknown channel ${channelId}`);
    ch.botIsMember = member;
  }

  /** Share a channel (Slack Connect, a pending invitation, org-wide) or stop sharing it (undefined). */
  shareChannel(
    teamId: string,
    channelId: string,
    sharing: FakeChannelSpec['sharing'],
    sharedWith?: string,
  ): void {
    const ch = this.ws(teamId).channels.get(channelId);
    if (!ch) throw new Error(`fake slack: unknown channel ${channelId}`);
    if (sharing) ch.sharing = sharing;
    else delete ch.sharing;
    if (sharedWith) ch.sharedWith = sharedWith;
  }

  archiveChannel(teamId: string, channelId: string, archived = true): void {
    const ch = this.ws(teamId).channels.get(channelId);
    if (!ch) throw new Error(`fake slack: unknown channel ${channelId}`);
    ch.isArchived = archived;
  }

  setUsergroup(teamId: string, id: string, users: string[]): void {
    this.ws(teamId).usergroups.set(id, [...users]);
  }

  /**
   * A Workflow Builder step execution starts (what Slack does before sending function_executed):
   * returns the execution id and the short-lived function token (xwfp-…) the event carries. Both
   * the function token and the workspace's bot token may complete it (functions.completeSuccess /
   * completeError; no scope needed); a second completion gets execution_not_in_running_state.
   */
  startFunctionExecution(teamId: string): { executionId: string; token: string } {
    this.ws(teamId);
    const executionId = `Fx${String(++this.idCounter).padStart(10, '0')}`;
    const token = `xwfp-${teamId}-${executionId}-${Math.random().toString(36).slice(2, 10)}`;
    this.executions.set(executionId, { teamId, state: 'running' });
    this.tokens.set(token, teamId);
    return { executionId, token };
  }

  /**
   * Refuse functions.completeSuccess / completeError made with a token of these kinds
   * (`not_allowed_token_type`, as Slack answers a token type a method does not take); none by default.
   */
  refuseCompletionTokens(...kinds: Array<'bot' | 'function'>): void {
    this.refusedCompletionTokens = new Set(kinds);
  }

  /** State of a step execution ('running' until completed or failed). */
  functionExecution(executionId: string): 'running' | 'completed' | 'failed' | undefined {
    return this.executions.get(executionId)?.state;
  }

  /** Revoke a bot token (uninstall): later calls with it get invalid_auth / token_revoked. */
  revokeToken(token: string): void {
    this.tokens.delete(token);
  }

  workspace(teamId: string): Readonly<FakeWorkspaceSpec> & { botId: string; botUserId: string } {
    const ws = this.ws(teamId);
    return {
      teamId: ws.teamId,
      teamName: ws.teamName,
      botToken: ws.botToken,
      botId: ws.botId,
      botUserId: ws.botUserId,
      ...(ws.enterpriseId ? { enterpriseId: ws.enterpriseId } : {}),
    };
  }

  /** Make the next `times` calls of `method` ("*" = any) fail. */
  fail(method: string, spec: FailureSpec = {}): void {
    this.failures.set(method, {
      ...spec,
      error: spec.error ?? (spec.status === 429 ? 'ratelimited' : 'internal_error'),
      status: spec.status ?? (spec.error === 'ratelimited' ? 429 : 200),
      times: spec.times ?? 1,
    });
  }

  clearFailures(): void {
    this.failures.clear();
  }

  /** A trigger id as Slack puts in interactive payloads; valid for 3 s (options.triggerTtlMs). */
  issueTrigger(teamId: string, userId: string): string {
    this.ws(teamId);
    const id = `${Math.floor(this.now() / 1000)}.${++this.idCounter}.${randomBytes(16).toString('hex')}`;
    this.triggers.set(id, { teamId, userId, issuedAt: this.now(), used: false });
    return id;
  }

  /** A response_url for a command or interaction (usable 5 times within 30 minutes, like Slack's). */
  responseUrl(teamId: string, opts: { channel?: string; userId?: string; messageTs?: string } = {}): string {
    this.ws(teamId);
    const id = `${teamId}/${++this.idCounter}/${randomBytes(12).toString('hex')}`;
    this.responseUrls.set(id, { teamId, ...opts, createdAt: this.now(), uses: 0 });
    return `${this.url}/response/${id}`;
  }

  /** A user-uploaded file (e.g. a certificate shared with the bot); returns the file id. */
  addFile(
    teamId: string,
    file: { name: string; data: Buffer | string; mimetype?: string; user: string; title?: string },
  ): string {
    this.ws(teamId);
    const id = `F${String(++this.idCounter).padStart(8, '0')}`;
    this.files.set(id, {
      id,
      teamId,
      name: file.name,
      title: file.title ?? file.name,
      mimetype: file.mimetype ?? 'application/octet-stream',
      data: Buffer.isBuffer(file.data) ? file.data : Buffer.from(file.data),
      user: file.user,
      uploaded: true,
      channels: [],
      created: Math.floor(this.now() / 1000),
    });
    return id;
  }

  /** An OAuth code that oauth.v2.access exchanges for this workspace's bot token (single use). */
  oauthCode(opts: {
    teamId: string;
    userId: string;
    scope?: string | undefined;
    isEnterpriseInstall?: boolean;
  }): string {
    this.ws(opts.teamId);
    const code = `${++this.idCounter}.${randomBytes(12).toString('hex')}`;
    this.codes.set(code, {
      teamId: opts.teamId,
      userId: opts.userId,
      scope: opts.scope ?? 'commands,chat:write',
      isEnterpriseInstall: opts.isEnterpriseInstall ?? false,
    });
    return code;
  }

  // -----------------------------------------------------------------------------------------------
  // Inspection
  // -----------------------------------------------------------------------------------------------

  calls(method?: string): FakeCall[] {
    return method ? this.recorded.filter((c) => c.method === method) : [...this.recorded];
  }

  /**
   * Sequence number of the last call recorded so far (0 before any; not reset by `reset()`): wait
   * for what comes after it with `waitFor((c) => c.seq > seq && ...)`.
   */
  lastSeq(): number {
    return this.seq;
  }

  /** Messages currently in a channel (deleted ones excluded), oldest first. A user id means the DM. */
  messages(channel: string, opts: { includeDeleted?: boolean } = {}): FakeMessage[] {
    const ch = /^[UW]/.test(channel) ? this.dmId(channel) : channel;
    return this.msgs.filter((m) => m.channel === ch && (opts.includeDeleted || !m.deleted));
  }

  allMessages(): FakeMessage[] {
    return [...this.msgs];
  }

  ephemerals(filter: { channel?: string; user?: string } = {}): FakeEphemeral[] {
    return this.ephemeralMsgs.filter(
      (e) => (!filter.channel || e.channel === filter.channel) && (!filter.user || e.user === filter.user),
    );
  }

  responses(): FakeResponse[] {
    return [...this.responsesList];
  }

  /** The most recently opened/updated/pushed/published view of a user. */
  lastView(user: string, type?: 'modal' | 'home'): FakeView | undefined {
    for (let i = this.viewOrder.length - 1; i >= 0; i--) {
      const v = this.views.get(this.viewOrder[i]!);
      if (v && v.userId === user && (!type || v.type === type)) return v;
    }
    return undefined;
  }

  view(id: string): FakeView | undefined {
    return this.views.get(id);
  }

  file(id: string): FakeFile | undefined {
    return this.files.get(id);
  }

  /** Posts that came less than 1 s after the previous post in the same channel. */
  rateViolations(): { channel: string; ts: string; sinceLastMs: number }[] {
    return [...this.violations];
  }

  /** Resolve with the first recorded call (past or future) matching the predicate. */
  waitFor(predicate: (call: FakeCall) => boolean, timeoutMs = 5000): Promise<FakeCall> {
    const found = this.recorded.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const onCall = (c: FakeCall) => {
        if (predicate(c)) {
          clearTimeout(timer);
          this.events.off('call', onCall);
          resolve(c);
        }
      };
      const timer = setTimeout(() => {
        this.events.off('call', onCall);
        const recent = this.recorded
          .slice(-10)
          .map((c) => `${c.method}${c.ok ? '' : `(${c.error})`}`)
          .join(', ');
        reject(
          new Error(`fake slack: no matching call within ${timeoutMs} ms; last calls: ${recent || 'none'}`),
        );
      }, timeoutMs);
      this.events.on('call', onCall);
    });
  }

  /** Forget recorded calls, messages, views and responses (workspaces stay). */
  reset(): void {
    this.recorded.length = 0;
    this.msgs.length = 0;
    this.ephemeralMsgs.length = 0;
    this.views.clear();
    this.viewOrder.length = 0;
    this.responsesList.length = 0;
    this.violations.length = 0;
    this.lastPost.clear();
    this.failures.clear();
  }

  // -----------------------------------------------------------------------------------------------
  // HTTP
  // -----------------------------------------------------------------------------------------------

  private record(call: Omit<FakeCall, 'seq' | 'at'>): void {
    const full: FakeCall = { ...call, seq: ++this.seq, at: this.now() };
    this.recorded.push(full);
    this.events.emit('call', full);
  }

  private nextTs(): string {
    let micros = this.now() * 1000;
    if (micros <= this.lastTsMicros) micros = this.lastTsMicros + 1;
    this.lastTsMicros = micros;
    return `${Math.floor(micros / 1e6)}.${String(micros % 1e6).padStart(6, '0')}`;
  }

  private dmId(userId: string): string {
    return `D${userId.slice(1)}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', this.url);
    const body = await readBody(req);
    const path = url.pathname;
    if (req.method === 'POST' && path.startsWith('/api/')) {
      return this.handleApi(path.slice(5), req, body, res);
    }
    if (req.method === 'POST' && path.startsWith('/upload/'))
      return this.handleUpload(path.slice(8), req, body, res);
    if (req.method === 'POST' && path.startsWith('/response/')) {
      return this.handleResponse(path.slice(10), body, res);
    }
    if (req.method === 'GET' && path.startsWith('/files-pri/')) return this.handleDownload(path, req, res);
    if (req.method === 'GET' && path === '/oauth/v2/authorize') return this.handleAuthorize(url, res);
    if (req.method === 'GET' && path === '/signin') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Sign in to Slack</body></html>');
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }

  private async parseArgs(req: IncomingMessage, body: Buffer): Promise<Obj> {
    const ct = String(req.headers['content-type'] ?? '');
    let args: Obj = {};
    if (ct.includes('application/json')) {
      try {
        const parsed: unknown = JSON.parse(body.toString('utf8') || '{}');
        if (typeof parsed === 'object' && parsed !== null) args = parsed as Obj;
      } catch {
        throw new SlackApiError('invalid_json');
      }
    } else if (ct.includes('multipart/form-data')) {
      const form = await new Response(body, { headers: { 'content-type': ct } }).formData();
      for (const [k, v] of form.entries()) args[k] = typeof v === 'string' ? v : '[binary]';
    } else {
      for (const [k, v] of new URLSearchParams(body.toString('utf8'))) args[k] = v;
    }
    for (const k of JSON_FIELDS) {
      const v = args[k];
      if (typeof v === 'string' && /^[[{]/.test(v.trim())) {
        try {
          args[k] = JSON.parse(v);
        } catch {
          throw new SlackApiError('invalid_json', { field: k });
        }
      }
    }
    if (hasLoneSurrogate(args)) throw new SlackApiError('invalid_json');
    return args;
  }

  private send(
    res: ServerResponse,
    status: number,
    payload: unknown,
    headers: Record<string, string> = {},
  ): void {
    const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
    res
      .writeHead(status, {
        'content-type': typeof payload === 'string' ? 'text/plain' : 'application/json; charset=utf-8',
        ...headers,
      })
      .end(text);
  }

  private takeFailure(method: string): (FailureSpec & { error: string; status: number }) | undefined {
    for (const key of [method, '*']) {
      const f = this.failures.get(key);
      if (f && f.times > 0) {
        f.times -= 1;
        if (f.times <= 0) this.failures.delete(key);
        return { ...f };
      }
    }
    return undefined;
  }

  private async handleApi(method: string, req: IncomingMessage, body: Buffer, res: ServerResponse) {
    let args: Obj = {};
    let teamId: string | undefined;
    let tokenKind: FakeCall['tokenKind'];
    const record = (c: Omit<FakeCall, 'seq' | 'at'>) => this.record(tokenKind ? { ...c, tokenKind } : c);
    const recordArgs = () => {
      const { token: _t, client_secret: _s, ...rest } = args;
      return rest;
    };
    try {
      args = await this.parseArgs(req, body);
      const auth = String(req.headers.authorization ?? '');
      const token = auth.startsWith('Bearer ')
        ? auth.slice(7)
        : typeof args.token === 'string'
          ? args.token
          : '';
      teamId = token ? this.tokens.get(token) : undefined;
      tokenKind = kindOfToken(token);

      const failure = this.takeFailure(method);
      if (failure) {
        if (failure.status === 429 || failure.error === 'ratelimited') {
          const retry = String(failure.retryAfterSeconds ?? 1);
          const payload = { ok: false, error: 'ratelimited' };
          record({
            method,
            teamId,
            args: recordArgs(),
            status: 429,
            ok: false,
            error: 'ratelimited',
            response: payload,
          });
          return this.send(res, 429, payload, { 'retry-after': retry });
        }
        if (failure.status >= 500) {
          record({
            method,
            teamId,
            args: recordArgs(),
            status: failure.status,
            ok: false,
            error: `http_${failure.status}`,
          });
          return this.send(res, failure.status, 'upstream error');
        }
        throw new SlackApiError(failure.error);
      }

      let result: Obj;
      if (method === 'oauth.v2.access') {
        result = this.oauthAccess(args, req);
      } else if (method === 'apps.connections.open') {
        // Socket Mode: an app-level token (xapp-…) asks for a WebSocket URL. The WebSocket server
        // itself is the test's (see test/harness/socket-mode.ts): set its URL with setSocketModeUrl.
        if (!token) throw new SlackApiError('not_authed');
        if (!token.startsWith('xapp-')) throw new SlackApiError('not_allowed_token_type');
        if (!this.socketModeUrl) throw new SlackApiError('socket_mode_not_enabled');
        result = { url: this.socketModeUrl };
      } else if (method === 'api.test') {
        // Needs no token (used by /readyz with OAuth distribution).
        result = { args: recordArgs() };
      } else {
        if (!token) throw new SlackApiError('not_authed');
        if (!teamId) throw new SlackApiError('invalid_auth');
        if (
          method.startsWith('functions.complete') &&
          tokenKind &&
          this.refusedCompletionTokens.has(tokenKind)
        )
          throw new SlackApiError('not_allowed_token_type');
        result = await this.dispatch(method, this.ws(teamId), args);
      }
      const payload = { ok: true, ...result };
      record({ method, teamId, args: recordArgs(), status: 200, ok: true, response: payload });
      const scopes = teamId ? this.workspaces.get(teamId)?.scopes : undefined;
      return this.send(res, 200, payload, scopes ? { 'x-oauth-scopes': scopes.join(',') } : {});
    } catch (e) {
      if (!(e instanceof SlackApiError)) throw e;
      const payload = { ok: false, error: e.error, ...e.extra };
      record({
        method,
        teamId,
        args: recordArgs(),
        status: 200,
        ok: false,
        error: e.error,
        response: payload,
      });
      return this.send(res, 200, payload);
    }
  }

  private async dispatch(method: string, ws: Workspace, a: Obj): Promise<Obj> {
    switch (method) {
      case 'auth.test':
        return {
          url: `https://${ws.domain}.slack.com/`,
          team: ws.teamName,
          user: 'drm-chatops',
          team_id: ws.teamId,
          user_id: ws.botUserId,
          bot_id: ws.botId,
          ...(ws.enterpriseId ? { enterprise_id: ws.enterpriseId } : {}),
          is_enterprise_install: false,
        };
      case 'chat.postMessage':
        return this.postMessage(ws, a);
      case 'chat.postEphemeral':
        return this.postEphemeral(ws, a);
      case 'chat.update':
        return this.updateMessage(ws, a);
      case 'chat.delete': {
        const m = this.ownMessage(ws, a);
        m.deleted = true;
        return { channel: m.channel, ts: m.ts };
      }
      case 'chat.getPermalink': {
        const channel = this.channelFor(ws, a.channel, { needMember: false });
        const m = this.msgs.find((x) => x.channel === channel && x.ts === a.message_ts && !x.deleted);
        if (!m) throw new SlackApiError('message_not_found');
        return {
          channel,
          permalink: `https://${ws.domain}.slack.com/archives/${channel}/p${m.ts.replace('.', '')}`,
        };
      }
      case 'views.open':
      case 'views.push':
        return this.openView(method, ws, a);
      case 'views.update':
        return this.updateView(ws, a);
      case 'views.publish':
        return this.publishView(ws, a);
      case 'users.info': {
        const u = ws.users.get(String(a.user ?? ''));
        if (!u) throw new SlackApiError('user_not_found');
        return { user: this.userObject(ws, u) };
      }
      case 'usergroups.users.list': {
        const g = ws.usergroups.get(String(a.usergroup ?? ''));
        if (!g) throw new SlackApiError('no_such_subteam');
        return { users: [...g] };
      }
      case 'conversations.info': {
        const id = String(a.channel ?? '');
        if (id.startsWith('D')) {
          const user = [`U${id.slice(1)}`, `W${id.slice(1)}`].find((u) => ws.users.has(u));
          if (!user) throw new SlackApiError('channel_not_found');
          return {
            channel: {
              id,
              created: 1_700_000_000,
              is_im: true,
              is_org_shared: false,
              user,
              is_archived: false,
            },
          };
        }
        const ch = ws.channels.get(id);
        if (!ch || (ch.isPrivate && ch.botIsMember === false)) throw new SlackApiError('channel_not_found');
        return { channel: this.channelObject(ch, ws.teamId) };
      }
      case 'conversations.members': {
        // Paged like Slack (limit, cursor); members default to every workspace user.
        const ch = ws.channels.get(String(a.channel ?? ''));
        if (!ch || (ch.isPrivate && ch.botIsMember === false)) throw new SlackApiError('channel_not_found');
        const all = ch.members ?? [...ws.users.keys()];
        const limit = Math.min(Math.max(Number(a.limit) || 100, 1), 1000);
        const offset = typeof a.cursor === 'string' && a.cursor ? Number(atob(a.cursor).slice(7)) || 0 : 0;
        const more = offset + limit < all.length;
        return {
          members: all.slice(offset, offset + limit),
          response_metadata: { next_cursor: more ? btoa(`offset:${offset + limit}`) : '' },
        };
      }
      case 'conversations.history':
        return this.history(ws, a);
      case 'conversations.replies':
        return this.replies(ws, a);
      case 'conversations.open': {
        const users = String(a.users ?? '')
          .split(',')
          .filter(Boolean);
        if (users.length !== 1)
          throw new SlackApiError(users.length ? 'not_implemented' : 'users_list_not_supplied');
        if (!ws.users.has(users[0]!)) throw new SlackApiError('user_not_found');
        return { channel: { id: this.dmId(users[0]!) } };
      }
      case 'team.info':
        return { team: { id: ws.teamId, name: ws.teamName, domain: ws.domain } };
      case 'files.getUploadURLExternal': {
        const filename = typeof a.filename === 'string' ? a.filename : '';
        const length = Number(a.length);
        if (!filename || !Number.isInteger(length) || length < 0)
          throw new SlackApiError('invalid_arguments');
        const id = `F${String(++this.idCounter).padStart(8, '0')}`;
        this.files.set(id, {
          id,
          teamId: ws.teamId,
          name: filename,
          title: filename,
          mimetype: 'application/octet-stream',
          data: Buffer.alloc(0),
          user: ws.botUserId,
          uploaded: false,
          channels: [],
          created: Math.floor(this.now() / 1000),
        });
        return { upload_url: `${this.url}/upload/${id}`, file_id: id };
      }
      case 'files.completeUploadExternal':
        return this.completeUpload(ws, a);
      case 'files.delete': {
        // A bot may delete the files it uploaded (files:write); another's file: cant_delete_file.
        const f = this.files.get(String(a.file ?? ''));
        if (!f || f.teamId !== ws.teamId) throw new SlackApiError('file_not_found');
        if (f.user !== ws.botUserId) throw new SlackApiError('cant_delete_file');
        this.files.delete(f.id);
        return {};
      }
      case 'files.info': {
        const f = this.files.get(String(a.file ?? ''));
        if (!f || f.teamId !== ws.teamId) throw new SlackApiError('file_not_found');
        return { file: this.fileObject(f) };
      }
      case 'functions.completeSuccess':
      case 'functions.completeError': {
        const id = String(a.function_execution_id ?? '');
        const ex = this.executions.get(id);
        if (!ex || ex.teamId !== ws.teamId) throw new SlackApiError('function_execution_not_found');
        if (ex.state !== 'running') throw new SlackApiError('execution_not_in_running_state');
        if (method === 'functions.completeSuccess') {
          if (!a.outputs || typeof a.outputs !== 'object' || Array.isArray(a.outputs))
            throw new SlackApiError('parameter_validation_failed');
          ex.state = 'completed';
        } else {
          if (typeof a.error !== 'string' || !a.error) throw new SlackApiError('invalid_arguments');
          ex.state = 'failed';
        }
        return {};
      }
      default:
        throw new SlackApiError('unknown_method');
    }
  }

  // -- Channels and messages ---------------------------------------------------------------------

  /** Resolve a channel argument in the token's workspace, enforcing what Slack enforces. */
  private channelFor(ws: Workspace, raw: unknown, opts: { needMember: boolean }): string {
    const id = typeof raw === 'string' ? raw : '';
    if (!id) throw new SlackApiError('channel_not_found');
    if (/^[UW]/.test(id)) {
      if (!ws.users.has(id)) throw new SlackApiError('channel_not_found');
      return this.dmId(id);
    }
    if (id.startsWith('D')) {
      const user = `U${id.slice(1)}`;
      const userW = `W${id.slice(1)}`;
      if (!ws.users.has(user) && !ws.users.has(userW)) throw new SlackApiError('channel_not_found');
      return id;
    }
    const ch = ws.channels.get(id);
    if (!ch) throw new SlackApiError('channel_not_found');
    if (ch.isPrivate && ch.botIsMember === false) throw new SlackApiError('channel_not_found');
    if (ch.isArchived) throw new SlackApiError('is_archived');
    if (opts.needMember && ch.botIsMember === false) throw new SlackApiError('not_in_channel');
    return id;
  }

  private checkContent(a: Obj): void {
    const hasText = typeof a.text === 'string' && a.text.length > 0;
    const hasBlocks = Array.isArray(a.blocks) && a.blocks.length > 0;
    const hasAttachments = Array.isArray(a.attachments) && a.attachments.length > 0;
    if (!hasText && !hasBlocks && !hasAttachments) throw new SlackApiError('no_text');
    if (typeof a.text === 'string' && a.text.length > 40_000) throw new SlackApiError('msg_too_long');
    if (a.blocks !== undefined) {
      const errs = validateMessageBlocks(a.blocks);
      if (errs.length > 0)
        throw new SlackApiError('invalid_blocks', { response_metadata: { messages: errs } });
    }
  }

  private checkRate(channel: string, ts: string): void {
    const now = this.now();
    const last = this.lastPost.get(channel);
    if (last !== undefined && now - last < 1000)
      this.violations.push({ channel, ts, sinceLastMs: now - last });
    this.lastPost.set(channel, now);
  }

  private messageObject(m: FakeMessage, opts: { metadata?: boolean } = {}): Obj {
    return {
      type: 'message',
      ...(m.replyBroadcast ? { subtype: 'thread_broadcast' } : {}),
      ...(opts.metadata && m.metadata ? { metadata: m.metadata } : {}),
      user: m.user,
      bot_id: m.botId,
      team: m.teamId,
      ts: m.ts,
      ...(m.text !== undefined ? { text: m.text } : { text: '' }),
      ...(m.blocks ? { blocks: m.blocks } : {}),
      ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
      ...(m.files ? { files: m.files.map((id) => ({ id })) } : {}),
    };
  }

  private postMessage(ws: Workspace, a: Obj): Obj {
    const channel = this.channelFor(ws, a.channel, { needMember: true });
    this.checkContent(a);
    if (a.thread_ts !== undefined) {
      const parent = this.msgs.find((m) => m.channel === channel && m.ts === a.thread_ts);
      // Slack accepts an unknown thread_ts silently (posts to the channel); keep the same.
      if (!parent) delete a.thread_ts;
    }
    const ts = this.nextTs();
    const m: FakeMessage = {
      channel,
      ts,
      teamId: ws.teamId,
      user: ws.botUserId,
      botId: ws.botId,
      via: 'chat.postMessage',
      ...(typeof a.text === 'string' ? { text: a.text } : {}),
      ...(Array.isArray(a.blocks) ? { blocks: a.blocks } : {}),
      ...(typeof a.thread_ts === 'string' ? { threadTs: a.thread_ts } : {}),
      ...(isMetadata(a.metadata) ? { metadata: a.metadata } : {}),
      ...(typeof a.thread_ts === 'string' && (a.reply_broadcast === true || a.reply_broadcast === 'true')
        ? { replyBroadcast: true }
        : {}),
    };
    this.checkRate(channel, ts);
    this.msgs.push(m);
    return { channel, ts, message: this.messageObject(m) };
  }

  /** conversations.history: top-level messages and thread broadcasts, newest first, paged. */
  private history(ws: Workspace, a: Obj): Obj {
    const channel = this.channelFor(ws, a.channel, { needMember: true });
    const list = this.msgs
      .filter((m) => m.channel === channel && !m.deleted && (!m.threadTs || m.replyBroadcast))
      .filter((m) => inRange(m.ts, a))
      .sort((x, y) => Number(y.ts) - Number(x.ts));
    return this.page(list, a);
  }

  /** conversations.replies: the parent, then its replies oldest first, paged. */
  private replies(ws: Workspace, a: Obj): Obj {
    const channel = this.channelFor(ws, a.channel, { needMember: true });
    const ts = typeof a.ts === 'string' ? a.ts : '';
    const parent = this.msgs.find((m) => m.channel === channel && m.ts === ts && !m.deleted);
    if (!parent) throw new SlackApiError('thread_not_found');
    const replies = this.msgs
      .filter((m) => m.channel === channel && m.threadTs === ts && !m.deleted && inRange(m.ts, a))
      .sort((x, y) => Number(x.ts) - Number(y.ts));
    return this.page([parent, ...replies], a);
  }

  private page(list: FakeMessage[], a: Obj): Obj {
    const limit = Math.min(Math.max(Number(a.limit) || 100, 1), 999);
    const offset = typeof a.cursor === 'string' && a.cursor ? Number(atob(a.cursor).slice(7)) || 0 : 0;
    const slice = list.slice(offset, offset + limit);
    const more = offset + limit < list.length;
    const metadata = a.include_all_metadata === true || a.include_all_metadata === 'true';
    return {
      messages: slice.map((m) => this.messageObject(m, { metadata })),
      has_more: more,
      response_metadata: { next_cursor: more ? btoa(`offset:${offset + limit}`) : '' },
    };
  }

  private postEphemeral(ws: Workspace, a: Obj): Obj {
    const channel = this.channelFor(ws, a.channel, { needMember: true });
    const user = String(a.user ?? '');
    if (!ws.users.has(user)) throw new SlackApiError('user_not_found');
    const ch = ws.channels.get(channel);
    if (ch?.members && !ch.members.includes(user)) throw new SlackApiError('user_not_in_channel');
    this.checkContent(a);
    const ts = this.nextTs();
    this.ephemeralMsgs.push({
      channel,
      user,
      teamId: ws.teamId,
      ts,
      via: 'chat.postEphemeral',
      ...(typeof a.text === 'string' ? { text: a.text } : {}),
      ...(Array.isArray(a.blocks) ? { blocks: a.blocks } : {}),
    });
    return { message_ts: ts };
  }

  private ownMessage(ws: Workspace, a: Obj): FakeMessage {
    const channel = this.channelFor(ws, a.channel, { needMember: false });
    const m = this.msgs.find((x) => x.channel === channel && x.ts === a.ts && !x.deleted);
    if (!m) throw new SlackApiError('message_not_found');
    if (m.teamId !== ws.teamId || m.botId !== ws.botId) throw new SlackApiError('cant_update_message');
    return m;
  }

  private updateMessage(ws: Workspace, a: Obj): Obj {
    const m = this.ownMessage(ws, a);
    this.checkContent({ ...a, ...(a.text === undefined && a.blocks === undefined ? { text: m.text } : {}) });
    if (typeof a.text === 'string') m.text = a.text;
    if (Array.isArray(a.blocks)) m.blocks = a.blocks;
    m.edited = true;
    return { channel: m.channel, ts: m.ts, text: m.text ?? '', message: this.messageObject(m) };
  }

  // -- Views ---------------------------------------------------------------------------------------

  private useTrigger(ws: Workspace, raw: unknown): Trigger {
    const t = this.triggers.get(typeof raw === 'string' ? raw : '');
    if (!t || t.teamId !== ws.teamId) throw new SlackApiError('invalid_trigger_id');
    if (t.used) throw new SlackApiError('exchanged_trigger_id');
    if (this.now() - t.issuedAt > (this.opts.triggerTtlMs ?? 3000))
      throw new SlackApiError('expired_trigger_id');
    t.used = true;
    return t;
  }

  private checkView(view: unknown, type?: 'modal' | 'home'): Obj {
    const errs = validateView(view);
    if (errs.length > 0)
      throw new SlackApiError('invalid_arguments', { response_metadata: { messages: errs } });
    const v = view as Obj;
    if (type && v.type !== type) {
      throw new SlackApiError('invalid_arguments', {
        response_metadata: { messages: [`[ERROR] must be ${type} [json-pointer:/view/type]`] },
      });
    }
    return v;
  }

  private storeView(
    ws: Workspace,
    userId: string,
    v: Obj,
    via: string,
    base?: { id: string; rootViewId: string; previousViewId: string | null },
  ): FakeView {
    const id = base?.id ?? `V${String(++this.idCounter).padStart(8, '0')}`;
    const fv: FakeView = {
      id,
      teamId: ws.teamId,
      userId,
      type: v.type as 'modal' | 'home',
      hash: `${Math.floor(this.now() / 1000)}.${randomBytes(6).toString('hex')}`,
      rootViewId: base?.rootViewId ?? id,
      previousViewId: base?.previousViewId ?? null,
      blocks: (v.blocks as unknown[]) ?? [],
      view: v,
      via,
      ...(typeof v.external_id === 'string' ? { externalId: v.external_id } : {}),
      ...(typeof v.callback_id === 'string' ? { callbackId: v.callback_id } : {}),
      ...(typeof v.private_metadata === 'string' ? { privateMetadata: v.private_metadata } : {}),
      ...(v.title !== undefined ? { title: v.title } : {}),
    };
    if (fv.externalId) {
      for (const other of this.views.values()) {
        if (
          other.id !== id &&
          other.teamId === ws.teamId &&
          other.externalId === fv.externalId &&
          !other.closed
        )
          throw new SlackApiError('duplicate_external_id');
      }
    }
    this.views.set(id, fv);
    const idx = this.viewOrder.indexOf(id);
    if (idx >= 0) this.viewOrder.splice(idx, 1);
    this.viewOrder.push(id);
    return fv;
  }

  private viewResponse(ws: Workspace, fv: FakeView): Obj {
    const v = fv.view;
    return {
      view: {
        id: fv.id,
        team_id: ws.teamId,
        type: fv.type,
        blocks: fv.blocks,
        private_metadata: fv.privateMetadata ?? '',
        callback_id: fv.callbackId ?? '',
        state: { values: {} },
        hash: fv.hash,
        title: v.title ?? null,
        close: v.close ?? null,
        submit: v.submit ?? null,
        clear_on_close: Boolean(v.clear_on_close),
        notify_on_close: Boolean(v.notify_on_close),
        root_view_id: fv.rootViewId,
        previous_view_id: fv.previousViewId,
        app_id: ws.appId,
        external_id: fv.externalId ?? '',
        bot_id: ws.botId,
      },
    };
  }

  private openView(method: string, ws: Workspace, a: Obj): Obj {
    const trig = this.useTrigger(ws, a.trigger_id);
    const v = this.checkView(a.view, 'modal');
    if (method === 'views.push') {
      const top = this.lastView(trig.userId, 'modal');
      if (!top || top.closed) throw new SlackApiError('not_found');
      const depth = [...this.views.values()].filter(
        (x) => x.rootViewId === top.rootViewId && !x.closed,
      ).length;
      if (depth >= 3) throw new SlackApiError('push_limit_reached');
      const fv = this.storeView(ws, trig.userId, v, method, {
        id: `V${String(++this.idCounter).padStart(8, '0')}`,
        rootViewId: top.rootViewId,
        previousViewId: top.id,
      });
      return this.viewResponse(ws, fv);
    }
    return this.viewResponse(ws, this.storeView(ws, trig.userId, v, method));
  }

  private updateView(ws: Workspace, a: Obj): Obj {
    let existing: FakeView | undefined;
    if (typeof a.view_id === 'string') existing = this.views.get(a.view_id);
    else if (typeof a.external_id === 'string')
      existing = [...this.views.values()].find(
        (x) => x.externalId === a.external_id && x.teamId === ws.teamId,
      );
    else throw new SlackApiError('invalid_arguments');
    if (!existing || existing.teamId !== ws.teamId) throw new SlackApiError('not_found');
    if (typeof a.hash === 'string' && a.hash !== existing.hash) throw new SlackApiError('hash_conflict');
    const v = this.checkView(a.view, existing.type);
    const fv = this.storeView(ws, existing.userId, v, 'views.update', existing);
    return this.viewResponse(ws, fv);
  }

  private publishView(ws: Workspace, a: Obj): Obj {
    const user = String(a.user_id ?? '');
    if (!ws.users.has(user)) throw new SlackApiError('user_not_found');
    const v = this.checkView(a.view, 'home');
    const existing = [...this.views.values()].find(
      (x) => x.userId === user && x.type === 'home' && x.teamId === ws.teamId,
    );
    if (existing && typeof a.hash === 'string' && a.hash !== existing.hash)
      throw new SlackApiError('hash_conflict');
    return this.viewResponse(ws, this.storeView(ws, user, v, 'views.publish', existing));
  }

  /** Mark a modal closed (the harness calls it when it sends view_submission/view_closed). */
  closeView(viewId: string): void {
    const v = this.views.get(viewId);
    if (v) v.closed = true;
  }

  // -- Users, channels, files ------------------------------------------------------------------------

  private userObject(ws: Workspace, u: FakeUserSpec): Obj {
    const tz = u.tz ?? 'UTC';
    const name = u.name ?? u.id.toLowerCase();
    const team = u.homeTeamId ?? ws.teamId;
    const enterpriseId = u.enterpriseId ?? (u.homeTeamId ? undefined : ws.enterpriseId);
    return {
      id: u.id,
      team_id: team,
      ...(enterpriseId
        ? {
            enterprise_user: {
              id: u.id,
              enterprise_id: enterpriseId,
              enterprise_name: `Org ${enterpriseId}`,
              is_admin: Boolean(u.isAdmin || u.isOwner),
              is_owner: Boolean(u.isOwner || u.isPrimaryOwner),
              teams: [team],
            },
          }
        : {}),
      ...(u.isStranger ? { is_stranger: true } : {}),
      name,
      deleted: Boolean(u.deleted),
      real_name: u.realName ?? name,
      tz,
      tz_label: tz,
      tz_offset: tzOffsetSeconds(tz, this.now()),
      is_admin: Boolean(u.isAdmin || u.isOwner),
      is_owner: Boolean(u.isOwner || u.isPrimaryOwner),
      is_primary_owner: Boolean(u.isPrimaryOwner),
      is_restricted: Boolean(u.isRestricted || u.isUltraRestricted),
      is_ultra_restricted: Boolean(u.isUltraRestricted),
      is_bot: Boolean(u.isBot),
      is_app_user: false,
      updated: Math.floor(this.now() / 1000),
      profile: {
        real_name: u.realName ?? name,
        display_name: name,
        ...(u.email ? { email: u.email } : {}),
        team,
      },
    };
  }

  private channelObject(ch: FakeChannelSpec, ownTeam: string): Obj {
    const other = ch.sharedWith ?? 'T0PARTNER';
    const sharing: Obj =
      ch.sharing === 'external'
        ? {
            is_shared: true,
            is_ext_shared: true,
            is_org_shared: false,
            is_pending_ext_shared: false,
            shared_team_ids: [ownTeam, other],
          }
        : ch.sharing === 'pending'
          ? {
              is_shared: false,
              is_ext_shared: false,
              is_org_shared: false,
              is_pending_ext_shared: true,
              pending_shared: [other],
              shared_team_ids: [ownTeam],
            }
          : ch.sharing === 'org'
            ? {
                is_shared: true,
                is_ext_shared: false,
                is_org_shared: true,
                is_pending_ext_shared: false,
                shared_team_ids: [ownTeam, other],
              }
            : {
                is_shared: false,
                is_ext_shared: false,
                is_org_shared: false,
                is_pending_ext_shared: false,
                shared_team_ids: [ownTeam],
              };
    return {
      ...sharing,
      id: ch.id,
      name: ch.name,
      name_normalized: ch.name,
      is_channel: !ch.isPrivate,
      is_group: Boolean(ch.isPrivate),
      is_im: false,
      is_mpim: false,
      is_private: Boolean(ch.isPrivate),
      is_archived: Boolean(ch.isArchived),
      is_general: false,
      is_member: ch.botIsMember !== false,
      created: 1_700_000_000,
    };
  }

  private fileObject(f: FakeFile): Obj {
    const ext = f.name.includes('.') ? f.name.split('.').pop()! : '';
    const url = `${this.url}/files-pri/${f.teamId}-${f.id}/${encodeURIComponent(f.name)}`;
    return {
      id: f.id,
      created: f.created,
      timestamp: f.created,
      name: f.name,
      title: f.title,
      mimetype: f.mimetype,
      filetype: ext,
      pretty_type: ext.toUpperCase(),
      user: f.user,
      size: f.data.length,
      mode: 'hosted',
      is_external: false,
      is_public: false,
      url_private: url,
      url_private_download: `${url}?download=1`,
      channels: f.channels,
    };
  }

  private completeUpload(ws: Workspace, a: Obj): Obj {
    const list = Array.isArray(a.files) ? (a.files as Obj[]) : undefined;
    if (!list || list.length === 0) throw new SlackApiError('invalid_arguments');
    const files = list.map((x) => {
      const f = this.files.get(String(x.id ?? ''));
      if (!f || f.teamId !== ws.teamId) throw new SlackApiError('file_not_found');
      if (!f.uploaded) throw new SlackApiError('file_upload_failed');
      return { f, title: typeof x.title === 'string' ? x.title : f.name };
    });
    let channel: string | undefined;
    if (a.channel_id !== undefined) channel = this.channelFor(ws, a.channel_id, { needMember: true });
    if (typeof a.initial_comment === 'string' && a.initial_comment.length > 40_000)
      throw new SlackApiError('msg_too_long');
    for (const { f, title } of files) {
      f.title = title;
      if (channel) f.channels.push(channel);
    }
    if (channel) {
      const ts = this.nextTs();
      this.checkRate(channel, ts);
      this.msgs.push({
        channel,
        ts,
        teamId: ws.teamId,
        user: ws.botUserId,
        botId: ws.botId,
        via: 'files.completeUploadExternal',
        files: files.map(({ f }) => f.id),
        ...(typeof a.initial_comment === 'string' ? { text: a.initial_comment } : {}),
        ...(typeof a.thread_ts === 'string' ? { threadTs: a.thread_ts } : {}),
      });
    }
    return { files: files.map(({ f }) => ({ id: f.id, title: f.title, name: f.name })) };
  }

  private async handleUpload(id: string, req: IncomingMessage, body: Buffer, res: ServerResponse) {
    const f = this.files.get(id);
    if (!f || f.uploaded) {
      this.record({ method: 'upload', args: { file_id: id }, status: 404, ok: false, error: 'not_found' });
      return this.send(res, 404, 'not found');
    }
    const ct = String(req.headers['content-type'] ?? '');
    let data = body;
    if (ct.includes('multipart/form-data')) {
      const form = await new Response(body, { headers: { 'content-type': ct } }).formData();
      const part = [...form.values()].find((v) => typeof v !== 'string');
      if (part && typeof part !== 'string') data = Buffer.from(await part.arrayBuffer());
    }
    f.data = data;
    f.uploaded = true;
    this.record({
      method: 'upload',
      teamId: f.teamId,
      args: { file_id: id, bytes: data.length },
      status: 200,
      ok: true,
    });
    this.send(res, 200, `OK - ${data.length}`);
  }

  private handleDownload(path: string, req: IncomingMessage, res: ServerResponse) {
    const m = /^\/files-pri\/([A-Z0-9]+)-(F[0-9A-Z]+)\//.exec(path);
    const f = m ? this.files.get(m[2]!) : undefined;
    const auth = String(req.headers.authorization ?? '');
    const team = auth.startsWith('Bearer ') ? this.tokens.get(auth.slice(7)) : undefined;
    if (!f || !m || f.teamId !== m[1]) {
      this.record({
        method: 'download',
        teamId: team,
        args: { path },
        status: 404,
        ok: false,
        error: 'file_not_found',
      });
      return this.send(res, 404, 'not found');
    }
    if (team !== f.teamId) {
      // Like Slack: no valid token of the file's workspace -> a redirect to the sign-in HTML page.
      this.record({
        method: 'download',
        teamId: team,
        args: { file: f.id },
        status: 302,
        ok: false,
        error: 'not_authed',
      });
      res.writeHead(302, { location: `${this.url}/signin?redir=${encodeURIComponent(path)}` }).end();
      return;
    }
    this.record({ method: 'download', teamId: team, args: { file: f.id }, status: 200, ok: true });
    res.writeHead(200, { 'content-type': f.mimetype, 'content-length': String(f.data.length) }).end(f.data);
  }

  // -- response_url ----------------------------------------------------------------------------------

  private handleResponse(id: string, body: Buffer, res: ServerResponse) {
    const state = this.responseUrls.get(decodeURIComponent(id));
    const fail = (status: number, error: string, payload: Obj = {}) => {
      this.responsesList.push({
        id,
        teamId: state?.teamId ?? '',
        body: payload,
        at: this.now(),
        ok: false,
        error,
      });
      this.record({ method: 'response_url', teamId: state?.teamId, args: payload, status, ok: false, error });
      this.send(res, status, error);
    };
    let payload: Obj;
    try {
      payload = JSON.parse(body.toString('utf8')) as Obj;
      if (typeof payload !== 'object' || payload === null) throw new Error('not an object');
    } catch {
      return fail(400, 'invalid_payload');
    }
    if (hasLoneSurrogate(payload)) return fail(400, 'invalid_payload', payload);
    if (!state) return fail(404, 'invalid_url', payload);
    if (this.now() - state.createdAt > 30 * 60_000) return fail(404, 'expired_url', payload);
    if (state.uses >= 5) return fail(404, 'used_url', payload);
    const failure = this.takeFailure('response_url');
    if (failure) return fail(failure.status >= 400 ? failure.status : 500, failure.error, payload);
    if (payload.delete_original !== true) {
      const hasText = typeof payload.text === 'string' && payload.text.length > 0;
      const hasBlocks = Array.isArray(payload.blocks) && payload.blocks.length > 0;
      if (!hasText && !hasBlocks) return fail(400, 'no_text', payload);
      if (payload.blocks !== undefined) {
        const errs = validateMessageBlocks(payload.blocks);
        if (errs.length > 0) return fail(400, 'invalid_blocks', payload);
      }
    }
    state.uses += 1;
    const ts = this.nextTs();
    const original = state.messageTs
      ? this.msgs.find((m) => m.ts === state.messageTs && m.teamId === state.teamId)
      : undefined;
    if (payload.delete_original === true && original) original.deleted = true;
    else if (payload.replace_original === true && original) {
      if (typeof payload.text === 'string') original.text = payload.text;
      if (Array.isArray(payload.blocks)) original.blocks = payload.blocks;
      original.edited = true;
    } else if (payload.response_type === 'in_channel' && state.channel) {
      const ws = this.ws(state.teamId);
      this.msgs.push({
        channel: state.channel,
        ts,
        teamId: ws.teamId,
        user: ws.botUserId,
        botId: ws.botId,
        via: 'response_url',
        ...(typeof payload.text === 'string' ? { text: payload.text } : {}),
        ...(Array.isArray(payload.blocks) ? { blocks: payload.blocks } : {}),
      });
    } else if (payload.delete_original !== true && state.channel && state.userId) {
      this.ephemeralMsgs.push({
        channel: state.channel,
        user: state.userId,
        teamId: state.teamId,
        ts,
        via: 'response_url',
        ...(typeof payload.text === 'string' ? { text: payload.text } : {}),
        ...(Array.isArray(payload.blocks) ? { blocks: payload.blocks } : {}),
      });
    }
    this.responsesList.push({ id, teamId: state.teamId, body: payload, at: this.now(), ok: true });
    this.record({ method: 'response_url', teamId: state.teamId, args: payload, status: 200, ok: true });
    this.send(res, 200, { ok: true });
  }

  // -- OAuth ----------------------------------------------------------------------------------------

  /** Where the authorize page redirects (the app's /slack/oauth_redirect); settable after start. */
  oauthRedirectUri: string | undefined;

  /**
   * The "Allow" page, approved at once: redirects to redirect_uri with a fresh code and the state.
   * `team` and `user` query parameters pick who installs (default: first workspace, first user).
   */
  private handleAuthorize(url: URL, res: ServerResponse) {
    const q = url.searchParams;
    const redirect = q.get('redirect_uri') ?? this.oauthRedirectUri ?? this.opts.oauthRedirectUri;
    const teamId = q.get('team') ?? [...this.workspaces.keys()][0];
    const ws = teamId ? this.workspaces.get(teamId) : undefined;
    if (this.opts.clientId && q.get('client_id') !== this.opts.clientId)
      return this.send(res, 400, 'invalid_client_id');
    if (!redirect || !ws) return this.send(res, 400, redirect ? 'unknown team' : 'no redirect_uri');
    const user = q.get('user') ?? [...ws.users.keys()][0] ?? 'U0INSTALLER';
    const code = this.oauthCode({ teamId: ws.teamId, userId: user, scope: q.get('scope') ?? undefined });
    const target = new URL(redirect);
    target.searchParams.set('code', code);
    const state = q.get('state');
    if (state) target.searchParams.set('state', state);
    this.record({
      method: 'oauth.authorize',
      teamId: ws.teamId,
      args: { scope: q.get('scope') },
      status: 302,
      ok: true,
    });
    res.writeHead(302, { location: target.href }).end();
  }

  private oauthAccess(a: Obj, req: IncomingMessage): Obj {
    let clientId = typeof a.client_id === 'string' ? a.client_id : undefined;
    let clientSecret = typeof a.client_secret === 'string' ? a.client_secret : undefined;
    const auth = String(req.headers.authorization ?? '');
    if (auth.startsWith('Basic ')) {
      const [id, secret] = Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':');
      clientId = id;
      clientSecret = secret;
    }
    if (this.opts.clientId && clientId !== this.opts.clientId) throw new SlackApiError('invalid_client_id');
    if (this.opts.clientSecret && clientSecret !== this.opts.clientSecret)
      throw new SlackApiError('bad_client_secret');
    const code = this.codes.get(String(a.code ?? ''));
    if (!code) throw new SlackApiError('invalid_code');
    this.codes.delete(String(a.code));
    const ws = this.ws(code.teamId);
    if (!this.tokens.has(ws.botToken)) this.tokens.set(ws.botToken, ws.teamId);
    return {
      app_id: ws.appId,
      authed_user: { id: code.userId },
      scope: code.scope,
      token_type: 'bot',
      access_token: ws.botToken,
      bot_user_id: ws.botUserId,
      team: code.isEnterpriseInstall ? null : { id: ws.teamId, name: ws.teamName },
      enterprise: ws.enterpriseId ? { id: ws.enterpriseId, name: `Org ${ws.enterpriseId}` } : null,
      is_enterprise_install: code.isEnterpriseInstall,
    };
  }
}

export function startFakeSlack(opts: FakeSlackOptions = {}): Promise<FakeSlack> {
  return FakeSlack.start(opts);
}
