/**
 * Graceful drain on SIGTERM. A Bolt global middleware counts the requests being handled (a slash
 * command or button runs until its last reply is sent, upstream calls included). `drain(ms)`:
 * 1. stops taking new work: from then on a new command or button is acked and told the bot is
 *    restarting, a new form submission keeps its values and shows that as an inline error, and an
 *    event is acked and dropped (Slack does not retry an acked event; nothing in flight is lost);
 * 2. waits for the requests in flight to finish, `ms` at most;
 * 3. tells each request still running at the deadline that the bot is restarting (through its
 *    response_url where Slack gave one), so every request gets an answer;
 * then the caller stops the receiver, the background work and the store.
 */
import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { Logger } from '../log.js';

export const RESTARTING_TEXT =
  ':arrows_counterclockwise: DRM ChatOps is restarting, so this request was not run. Try again in a minute.';
export const RESTARTING_UNFINISHED_TEXT =
  ':arrows_counterclockwise: DRM ChatOps is restarting and this request did not finish in time. Check its result (for example with `/dwm jobs`) before you try again in a minute.';

type Respond = (msg: {
  response_type: 'ephemeral';
  replace_original: false;
  text: string;
}) => Promise<unknown>;

interface InFlight {
  respond?: Respond;
}

export interface Drain {
  /** The Bolt global middleware (register with app.use before any listener runs). */
  middleware: Middleware<AnyMiddlewareArgs>;
  /** Requests being handled now. */
  inFlight(): number;
  draining(): boolean;
  /**
   * Stop taking new work, wait for the work in flight (at most `ms`), answer the rest.
   * `atDeadline` runs before the rest are answered (the handler queue closes there, so a queued
   * command never starts after its user was told the bot is restarting).
   */
  drain(ms: number, atDeadline?: () => void): Promise<{ finished: number; unfinished: number }>;
}

function firstInputBlockId(body: unknown): string | undefined {
  const blocks = (body as { view?: { blocks?: Array<{ type?: string; block_id?: string }> } }).view?.blocks;
  return blocks?.find((b) => b.type === 'input' && typeof b.block_id === 'string')?.block_id;
}

export function createDrain(logger: Logger): Drain {
  const running = new Set<InFlight>();
  let isDraining = false;
  let idle: (() => void) | undefined;

  const middleware: Middleware<AnyMiddlewareArgs> = async (args) => {
    const a = args as unknown as {
      next: () => Promise<void>;
      ack?: (r?: unknown) => Promise<void>;
      respond?: Respond;
      body: { type?: string; command?: string };
    };
    if (isDraining) {
      const kind = a.body.type ?? (a.body.command ? 'slash_command' : 'event');
      if (kind === 'view_submission') {
        const block = firstInputBlockId(a.body);
        await a.ack?.(
          block
            ? {
                response_action: 'errors',
                errors: { [block]: 'DRM ChatOps is restarting. Submit again in a minute.' },
              }
            : undefined,
        );
        return;
      }
      await a.ack?.();
      if (a.respond) {
        await a
          .respond({ response_type: 'ephemeral', replace_original: false, text: RESTARTING_TEXT })
          .catch((err: unknown) => logger.warn({ err }, 'could not tell a user that the bot is restarting'));
      }
      return;
    }
    const entry: InFlight = a.respond ? { respond: a.respond } : {};
    running.add(entry);
    try {
      await a.next();
    } finally {
      running.delete(entry);
      if (running.size === 0) idle?.();
    }
  };

  return {
    middleware,
    inFlight: () => running.size,
    draining: () => isDraining,
    async drain(ms, atDeadline) {
      isDraining = true;
      const before = running.size;
      if (running.size > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          timer.unref?.();
          idle = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        idle = undefined;
      }
      atDeadline?.();
      const rest = [...running];
      await Promise.all(
        rest.map((r) =>
          r
            .respond?.({
              response_type: 'ephemeral',
              replace_original: false,
              text: RESTARTING_UNFINISHED_TEXT,
            })
            .catch((err: unknown) =>
              logger.warn({ err }, 'could not tell a user that the bot is restarting'),
            ),
        ),
      );
      const result = { finished: before - rest.length, unfinished: rest.length };
      logger.info(result, 'drained the requests in flight');
      return result;
    },
  };
}
