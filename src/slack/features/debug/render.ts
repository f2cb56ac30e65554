/** `/dwm debug`: the deployment's state for this workspace as one ephemeral card (no secrets). */
import type { DebugInfo } from '../../../ops/debug.js';
import {
  type Block,
  context,
  fields,
  header,
  type Message,
  message,
  section,
} from '../../kit/blocks/blocks.js';
import { code, dateToken, esc, truncate } from '../../kit/blocks/mrkdwn.js';

const MAX_SITES = 30;

export function debugMessage(d: DebugInfo, timeZone = 'UTC'): Message {
  const ids: Array<[string, string]> = [
    ['Workspace', code(d.workspace)],
    ['Team', d.teamId ? code(d.teamId) : '—'],
    ['Enterprise', d.enterpriseId ? code(d.enterpriseId) : '—'],
    ['Bot', d.botId ? `${code(d.botId)}${d.botUserId ? ` (user ${code(d.botUserId)})` : ''}` : '—'],
    [
      'Mode',
      `${d.mode === 'socket' ? 'Socket Mode' : 'HTTP'} · ${d.distribution === 'oauth' ? 'OAuth (many workspaces)' : 'single workspace'}`,
    ],
    ['Store', `${code(d.storeBackend)} · ${d.storeReachable ? 'reachable' : ':red_circle: not reachable'}`],
    [
      'Credentials',
      d.credentials === 'none'
        ? 'not set up'
        : d.credentials === 'env'
          ? 'environment (read-only)'
          : 'saved (encrypted)',
    ],
    ['Poll interval', `${d.pollIntervalSeconds} s`],
    ['Pending outbox', typeof d.outboxPending === 'number' ? String(d.outboxPending) : 'unavailable'],
    [
      'Versions',
      `app ${code(d.versions.app)} · Node ${code(d.versions.node)} · Bolt ${code(d.versions.bolt)}`,
    ],
  ];
  const blocks: Block[] = [header('Debug: drm-chatops'), section(undefined, { fields: fields(ids) })];
  if (d.pollingPausedReason) {
    blocks.push(
      section(`:double_vertical_bar: Job polling is paused: ${esc(truncate(d.pollingPausedReason, 500))}`),
    );
  }
  const lines = d.sites.slice(0, MAX_SITES).map((s) => {
    const parts = [
      `site ${code(s.siteId)}`,
      s.leaseHolder ? `lease ${code(truncate(s.leaseHolder, 80))}` : 'no lease holder',
      s.lastPollAt ? `last poll ${dateToken(s.lastPollAt, timeZone)}` : 'never polled',
    ];
    if (s.consecutiveFailures) parts.push(`${s.consecutiveFailures} failures in a row`);
    if (s.lastError) parts.push(`last error: ${esc(truncate(s.lastError, 200))}`);
    if (s.nextPollAt) parts.push(`next ${dateToken(s.nextPollAt, timeZone)}`);
    return `• ${parts.join(' · ')}`;
  });
  if (lines.length) blocks.push(section(truncate(`*Polling per site*\n${lines.join('\n')}`, 3000)));
  else blocks.push(section('*Polling per site*\nNo sites configured.'));
  if (d.sites.length > MAX_SITES) blocks.push(context(`…and ${d.sites.length - MAX_SITES} more sites.`));
  blocks.push(
    context(
      d.runtime
        ? `This replica: ${code(truncate(d.runtime.holderId, 100))} · watcher ${d.runtime.running ? 'running' : 'stopped'}`
        : 'This replica runs no watcher.',
    ),
  );
  return message(
    `Debug: workspace ${d.workspace}, ${d.mode}/${d.distribution}, store ${d.storeBackend}`,
    blocks,
  );
}
