/**
 * The Watermarking API's recipients of a site: the search, one recipient, a registration of new
 * ones (POST, never retried: the ops layer reconciles an ambiguous failure by looking the names
 * up) and a change of one's name or description.
 */
import { z } from 'zod';
import { listOf, parseWith } from '../envelope.js';
import { intLike, reqText, text } from '../fields.js';
import { parseServiceTime } from '../time.js';
import type {
  ModifiedRecipient,
  NewRecipient,
  Recipient,
  RecipientPatch,
  RecipientSearchQuery,
  TimeZoneOption,
  WatermarkingClient,
} from '../types.js';
import {
  assertValid,
  type Check,
  checkPageQuery,
  checkPositiveInt,
  checkRecipientBatch,
  checkRecipientPatch,
  checkSiteId,
} from '../validate.js';
import { getByNumber, listParams, page, site, tzChecks, type WmCall, zoneOf } from './call.js';

const recipientSchema = z.object({
  dwm_id: intLike,
  name: reqText,
  description: text,
  reg_time: text,
  update_time: text.optional(),
});

const modifiedSchema = z.object({ dwm_id: intLike, update_time: text });

type RecipientWire = z.output<typeof recipientSchema>;

function toRecipient(w: RecipientWire, tz: string): Recipient {
  const r: Recipient = {
    dwmId: w.dwm_id,
    name: w.name,
    description: w.description,
    regTime: parseServiceTime(w.reg_time, tz),
  };
  if (w.update_time !== undefined) r.updateTime = parseServiceTime(w.update_time, tz);
  return r;
}

/**
 * The registered recipients of a registration's answer, as a list. The registered recipient sent
 * as one object instead of an array of them ("not shown": the spec shows an array) is read as a
 * list holding it. Only an object carrying a dwm_id, so a wrapped list ({ "list": [...] }) or an
 * empty {} keeps its own reading (listOf). When that one object leaves out the name (and
 * description) of the only recipient sent, it answers that recipient: they are read from the
 * request. With several sent, which one it is cannot be known: a ProtocolError, which the ops
 * layer reconciles by looking names up.
 */
function registeredList(d: unknown, recipients: NewRecipient[]): unknown {
  if (d === null || typeof d !== 'object' || Array.isArray(d) || !('dwm_id' in d)) return d;
  const one = d as Record<string, unknown>;
  const sent = recipients.length === 1 ? recipients[0] : undefined;
  return [
    sent && (one.name === undefined || one.name === null)
      ? { ...one, name: sent.name, description: one.description ?? sent.description }
      : one,
  ];
}

export type RecipientEndpoints = Pick<
  WatermarkingClient,
  'searchRecipients' | 'getRecipient' | 'registerRecipients' | 'modifyRecipient'
>;

export function recipientEndpoints(call: WmCall): RecipientEndpoints {
  return {
    async searchRecipients(siteId, query: RecipientSearchQuery = {}) {
      const endpoint = 'wm.searchRecipients';
      assertValid(endpoint, [
        ['site id', checkSiteId(siteId)],
        ...(query.keywords ?? []).map(
          (k): Check => [
            'search keyword',
            k.trim() === '' ? 'A search keyword is empty: remove it or give some text.' : null,
          ],
        ),
        ...checkPageQuery(query),
        ...tzChecks(query.timeZone),
      ]);
      const env = await call(endpoint, siteId, 'GET', `/api/recipient${site(siteId)}`, {
        search_keyword: query.keywords,
        ...listParams(query),
      });
      const tz = zoneOf(env, query.timeZone);
      const items = parseWith(endpoint, listOf(recipientSchema), env.data).map((w) => toRecipient(w, tz));
      return page(items, env, query, tz);
    },

    async getRecipient(siteId, dwmId, opts: TimeZoneOption = {}) {
      const endpoint = 'wm.getRecipient';
      const { env, tz } = await getByNumber(
        call,
        endpoint,
        siteId,
        { field: 'DWM id', label: 'DWM id', value: dwmId },
        { base: '/api/recipient', rest: `/${dwmId}` },
        opts.timeZone,
      );
      return toRecipient(parseWith(endpoint, recipientSchema, env.data), tz);
    },

    async registerRecipients(siteId, recipients: NewRecipient[]) {
      const endpoint = 'wm.registerRecipients';
      assertValid(endpoint, [['site id', checkSiteId(siteId)], ...checkRecipientBatch(recipients)]);
      const body = {
        recipients: recipients.map((r) =>
          r.description === undefined ? { name: r.name } : { name: r.name, description: r.description },
        ),
      };
      // POST is never retried by the HTTP layer; see http.ts for how the ops layer reconciles.
      const env = await call(endpoint, siteId, 'POST', `/api/recipient${site(siteId)}`, undefined, {
        kind: 'json',
        value: body,
      });
      const tz = zoneOf(env);
      const list = registeredList(env.data, recipients);
      return parseWith(endpoint, listOf(recipientSchema), list).map((w) => toRecipient(w, tz));
    },

    async modifyRecipient(siteId, dwmId, patch: RecipientPatch): Promise<ModifiedRecipient> {
      const endpoint = 'wm.modifyRecipient';
      assertValid(endpoint, [
        ['site id', checkSiteId(siteId)],
        ['DWM id', checkPositiveInt(dwmId, 'DWM id')],
        ...checkRecipientPatch(patch),
      ]);
      const body: Record<string, string> = {};
      if (patch.name !== undefined) body.name = patch.name;
      if (patch.description !== undefined) body.description = patch.description;
      const env = await call(endpoint, siteId, 'PUT', `/api/recipient${site(siteId)}/${dwmId}`, undefined, {
        kind: 'json',
        value: body,
      });
      const tz = zoneOf(env);
      const w = parseWith(endpoint, modifiedSchema, env.data);
      return { dwmId: w.dwm_id, updateTime: parseServiceTime(w.update_time, tz) };
    },
  };
}
