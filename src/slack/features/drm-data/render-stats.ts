/** `/drm stats`: monthly active licenses, users and devices with the change against the previous month. */
import type { StatDelta, StatsComparison } from '../../../ops/service/stats.js';
import { context, fields, header, type Message, message, section } from '../../kit/blocks/blocks.js';
import { code } from '../../kit/blocks/mrkdwn.js';
import { type CardMeta, cardContext, count } from '../../shared/svc/values.js';

/** "+12 (+3.4%)" / "−5 (−1.2%)" / "no change" / "+40 (new: 0 last month)". */
export function deltaText(d: StatDelta): string {
  if (d.change === 0) return 'no change';
  const sign = d.change > 0 ? '+' : '\u2212';
  const arrow = d.change > 0 ? ':arrow_up_small:' : ':arrow_down_small:';
  const pct = d.percent === null ? 'none the month before' : `${sign}${Math.abs(d.percent).toFixed(1)}%`;
  return `${arrow} ${sign}${count(Math.abs(d.change))} (${pct})`;
}

function line(d: StatDelta): string {
  return `*${count(d.current)}*\n${deltaText(d)} vs ${count(d.previous)}`;
}

export function statsMessage(s: StatsComparison, meta: CardMeta): Message {
  const month = s.targetDate.slice(0, 7);
  return message(
    `Monthly stats of ${s.siteId} for ${month}: ${s.licenses.current} licenses, ${s.users.current} users, ${s.devices.current} devices.`,
    [
      header(`Monthly stats · ${s.siteId} · ${month}`),
      section(`Active in the month of ${code(s.targetDate)}, compared with ${code(s.previousDate)}.`, {
        fields: fields([
          ['Licenses', line(s.licenses)],
          ['Users', line(s.users)],
          ['Devices', line(s.devices)],
        ]),
      }),
      context(cardContext({ ...meta, siteId: s.siteId })),
    ],
  );
}
