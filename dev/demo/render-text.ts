/**
 * Readable text for what the bot sent to Slack: Block Kit blocks rendered as plain mrkdwn-ish
 * lines (headers underlined, fields as "Label: value", buttons in brackets, date tokens replaced by
 * their fallback text, entities decoded), and a link that opens the exact payload in Slack's Block
 * Kit Builder.
 */
import type { FakeCall } from '../fakeslack/index.js';

type Obj = Record<string, unknown>;

const BUILDER = 'https://app.slack.com/block-kit-builder/#';

/** Block Kit Builder link for a message's blocks or a view (modal / home). */
export function builderLink(payload: { blocks: unknown[] } | Obj): string {
  return `${BUILDER}${encodeURIComponent(JSON.stringify(payload))}`;
}

/** A channel id's name, as Slack shows `<#C…>` to a reader (undefined: show the id). */
export type ChannelNames = (id: string) => string | undefined;

/**
 * mrkdwn to terminal text: date tokens -> fallback, mentions -> @id, channels -> #name (as Slack
 * shows them; #id when the name is unknown), entities decoded.
 */
export function mrkdwnToText(s: string, names: ChannelNames = () => undefined): string {
  return s
    .replace(/<!date\^\d+\^[^|>]*\|([^>]*)>/g, '$1')
    .replace(/<@([A-Z0-9]+)>/g, '@$1')
    .replace(
      /<#([A-Z0-9]+)(?:\|([^>]*))?>/g,
      (_m, id: string, label?: string) => `#${label || names(id) || id}`,
    )
    .replace(/<!subteam\^([A-Z0-9]+)>/g, '@group:$1')
    .replace(/<(https?:[^|>]+)\|([^>]+)>/g, '$2 ($1)')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

const textOf = (t: unknown): string => {
  if (t && typeof t === 'object' && typeof (t as Obj).text === 'string')
    return mrkdwnToText((t as Obj).text as string);
  return '';
};

/** One block as text lines. */
export function blockToText(b: Obj): string {
  switch (b.type) {
    case 'header': {
      const t = textOf(b.text);
      return `${t}\n${'='.repeat(Math.min(60, t.length))}`;
    }
    case 'section': {
      const out: string[] = [];
      if (b.text) out.push(textOf(b.text));
      if (Array.isArray(b.fields)) for (const f of b.fields) out.push(`  ${textOf(f).replace(/\n/, ': ')}`);
      const acc = b.accessory as Obj | undefined;
      if (acc?.type === 'button') out.push(`  [${textOf(acc.text)}]`);
      return out.join('\n');
    }
    case 'context':
      return `  (${((b.elements as unknown[]) ?? []).map(textOf).filter(Boolean).join(' · ')})`;
    case 'actions':
      return `  ${((b.elements as Obj[]) ?? [])
        .map((e) => {
          const label = e.text ? textOf(e.text) : String(e.type);
          return e.style === 'danger' ? `[!${label}]` : e.style === 'primary' ? `[*${label}*]` : `[${label}]`;
        })
        .join(' ')}`;
    case 'divider':
      return '  ----';
    case 'input': {
      const el = (b.element ?? {}) as Obj;
      return `  ${textOf(b.label)}${b.optional ? ' (optional)' : ''}: [${String(el.type ?? 'input')}]`;
    }
    default:
      return `  <${String(b.type)} block>`;
  }
}

export function blocksToText(blocks: unknown[] | undefined, fallback = ''): string {
  if (!blocks || blocks.length === 0) return mrkdwnToText(fallback);
  return (blocks as Obj[]).map(blockToText).filter(Boolean).join('\n');
}

export interface Rendered {
  /** "Message in #C…", "Ephemeral reply", "Modal opened: Title", "Home tab". */
  title: string;
  text: string;
  link: string;
}

/**
 * What one recorded Web API call put in front of someone, as text; undefined for calls that show
 * nothing (users.info, conversations.history...).
 */
export function renderCall(c: FakeCall, names?: ChannelNames): Rendered | undefined {
  const r = renderRaw(c);
  if (!r || !names) return r;
  // Slack shows a channel by its name; the stand-in knows the demo's channel names.
  const named = (s: string) =>
    s.replace(/#([CG][A-Z0-9]{6,})\b/g, (m, id: string) => (names(id) ? `#${names(id)}` : m));
  return { ...r, title: named(r.title), text: named(r.text) };
}

function renderRaw(c: FakeCall): Rendered | undefined {
  const a = c.args;
  if (!c.ok) return undefined;
  switch (c.method) {
    case 'chat.postMessage':
    case 'chat.update':
    case 'chat.postEphemeral':
    case 'response_url': {
      const blocks = (a.blocks as unknown[] | undefined) ?? [];
      const where =
        c.method === 'response_url'
          ? a.response_type === 'in_channel'
            ? 'Reply in the channel'
            : 'Ephemeral reply (only the user sees it)'
          : c.method === 'chat.postEphemeral'
            ? `Ephemeral message to @${String(a.user)}`
            : c.method === 'chat.update'
              ? `Message updated in ${String(a.channel)}`
              : /^[UD]/.test(String(a.channel))
                ? `Direct message to ${String(a.channel)}`
                : `Message in #${String(a.channel)}${a.thread_ts ? ' (thread reply)' : ''}`;
      return {
        title: where,
        text: blocksToText(blocks, String(a.text ?? '')),
        link: builderLink({ blocks }),
      };
    }
    case 'views.open':
    case 'views.update':
    case 'views.push':
    case 'views.publish': {
      const view = (a.view ?? {}) as Obj;
      const title = textOf(view.title);
      const kind =
        c.method === 'views.publish'
          ? 'Home tab'
          : c.method === 'views.open'
            ? `Modal opened: ${title}`
            : `Modal ${c.method === 'views.push' ? 'pushed' : 'updated'}: ${title}`;
      return { title: kind, text: blocksToText(view.blocks as unknown[]), link: builderLink(view) };
    }
    default:
      return undefined;
  }
}
