/**
 * What every delivery goes through before Bolt's listeners (app.processEvent): an Events API
 * event Slack delivers again runs once (the replay guard, a lease per event id in the store,
 * shared by replicas), and a form submitted while the store is down keeps its form open with the
 * reason (the last-resort error handler marks such a submission, error-handler.ts).
 */
import { randomBytes } from 'node:crypto';
import type { App } from '@slack/bolt';
import type { AppDeps } from './deps.js';
import { keepFormOpen, STORE_DOWN_INLINE } from './kit/interactions/form-errors.js';

/** How long an event id is remembered: Slack retries an event 3 times within about 5 minutes. */
export const EVENT_ONCE_MS = 10 * 60_000;

/**
 * True the first time an Events API event id is seen (a lease in the store, shared by replicas).
 * When the store does not answer within 500 ms the event runs (availability first, as the
 * request gate's replay claim): a store outage may then let a redelivery run twice.
 */
function eventOnce(deps: AppDeps): (eventId: string) => Promise<boolean> {
  // A holder per delivery: the same holder would re-acquire (renew) its own lease.
  const prefix = randomBytes(6).toString('hex');
  let seq = 0;
  return async (eventId) => {
    const holder = `${prefix}-${++seq}`;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        deps.store.leases.acquire(`event-once:${eventId}`, holder, EVENT_ONCE_MS),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), 500);
        }),
      ]);
    } catch (err) {
      deps.logger.warn({ err, eventId }, 'could not record the event id; handling it');
      return true;
    } finally {
      if (timer) clearTimeout(timer);
    }
  };
}

/**
 * Wraps app.processEvent: redelivered events acked and dropped; a view submission's empty ack
 * keeps the form open when `storeDownForms` holds its body.
 */
export function guardDeliveries(app: App, deps: AppDeps, storeDownForms: WeakSet<object>): void {
  const { logger } = deps;
  const processEvent = app.processEvent.bind(app);
  const firstDelivery = eventOnce(deps);
  app.processEvent = async (event) => {
    const body = event.body as {
      type?: unknown;
      event_id?: unknown;
      view?: Parameters<typeof keepFormOpen>[0];
    };
    // An Events API event Slack delivers again (Socket Mode: retry_attempt > 0; HTTP:
    // X-Slack-Retry-Num) runs once: acked, nothing done the second time.
    if (body?.type === 'event_callback' && typeof body.event_id === 'string') {
      if (!(await firstDelivery(body.event_id))) {
        logger.info(
          { eventId: body.event_id, retryNum: event.retryNum },
          'event delivered again: handled once',
        );
        await event.ack();
        return;
      }
    }
    if (body?.type !== 'view_submission') return processEvent(event);
    return processEvent({
      ...event,
      ack: (r) =>
        event.ack(
          r === undefined && storeDownForms.has(body) ? (keepFormOpen(body.view, STORE_DOWN_INLINE) ?? r) : r,
        ),
    });
  };
}
