/**
 * DRM data buttons: Previous/Next (replace the table), packaging "More" (a new message below, so
 * earlier pages stay readable), and Export CSV.
 *
 * Export CSV goes to the user's DM with the bot (a documented choice): the data names end users
 * and devices, a channel may hold people who should not get it, and Slack has no ephemeral files.
 * An ephemeral note in the channel says where it went; the DM gets a progress message edited as
 * pages arrive (first page, then at most once a second), then the file (files.uploadV2) and the
 * final count. Exporting is audited (who took which data).
 */
import { decodeCursor, listPackaging, readerDaysOf } from '../../../ops/service/index.js';
import { exportQueryOf, exportWithProgress } from '../../../ops/service/paced-export.js';
import { message } from '../../kit/blocks/blocks.js';
import { errorBlocks } from '../../kit/context/errors.js';
import { dmChannel, errorOptions, logError, respondError } from '../../kit/context/support.js';
import { button } from '../../kit/interactions/registry.js';
import { uploadFile } from '../../kit/web/files.js';
import { serviceFor } from '../../shared/svc/support.js';
import { SVC_ACTIONS } from '../../shared/svc/values.js';
import { packagingReply, showData } from './commands.js';
import { exportDoneMessage, exportProgressMessage, exportStartedMessage } from './render.js';
import { dataValue, packagingValue } from './values.js';

export const pageButton = button({
  name: 'data.page',
  command: '/drm',
  actionId: new RegExp(`^${SVC_ACTIONS.dataPage}_`),
  value: dataValue,
  role: 'admin',
  personalData: true,
  refusal: () => ({ what: "read end viewers' DRM data", action: 'data.page' }),
  failure: (v) => `Couldn't list ${v.k}`,
  // The table's zone (a shared table keeps its days for every reader) and its audience. A table
  // shared in a channel that is now shared with another organisation shows no further page there
  // (the kit's rule for every button on a channel message: the page goes to the clicker only).
  async run(ctx, v, { inChannel }) {
    const shared = inChannel !== undefined;
    await showData(ctx, v.k, v.s, v.f, v.p, true, { ...(v.z ? { timeZone: v.z } : {}), shared });
  },
});

export const packagingMoreButton = button({
  name: 'data.packaging-more',
  command: '/drm',
  actionId: SVC_ACTIONS.packagingMore,
  value: packagingValue,
  role: 'admin',
  personalData: true,
  refusal: () => ({ what: "read end viewers' DRM data", action: 'data.packaging-more' }),
  failure: "Couldn't load more packaging records",
  async run(ctx, v) {
    const c = await ctx.clients();
    // The cursor names its site: it must be one of this workspace's sites before any call.
    const siteId = c.site(decodeCursor(v.c).siteId);
    const page = await listPackaging(c.service(), { cursor: v.c });
    const tz = await ctx.timeZone();
    await ctx.respond(packagingReply(ctx, siteId, page, tz, true));
  },
});

export const exportButton = button({
  name: 'data.export',
  command: '/drm',
  actionId: SVC_ACTIONS.dataExport,
  value: dataValue,
  role: 'admin',
  personalData: true,
  refusal: () => ({ what: "export end viewers' DRM data", action: 'data.export' }),
  failure: "Couldn't export the CSV",
  async run(ctx, v, { client }) {
    const deps = ctx.deps;
    let dm: string | undefined;
    let progressTs: string | undefined;
    try {
      const { svc, siteId } = await serviceFor(ctx, v.s);
      // The dates are the table's days (its zone travels in the button), as on the table, also
      // when another reader clicks a shared table; a table of an older version: the clicker's.
      const tz = v.z ?? (await ctx.timeZone());
      const filters = { ...v.f, timeZone: tz };
      const query = exportQueryOf(v.k, filters);
      const days = readerDaysOf(filters);
      await ctx.respond(exportStartedMessage(v.k, siteId), { share: false });
      dm = await dmChannel(client, ctx.userId);
      const started = exportProgressMessage(siteId, undefined);
      const posted = await client.chat.postMessage({
        channel: dm,
        text: started.text,
        blocks: started.blocks,
      });
      progressTs = posted.ts;
      const result = await exportWithProgress(v.k, svc, siteId, query, {
        now: deps.now,
        ...(days ? { days } : {}),
        onProgress: async (p) => {
          if (!dm || !progressTs) return;
          const m = exportProgressMessage(siteId, p);
          await client.chat
            .update({ channel: dm, ts: progressTs, text: m.text, blocks: m.blocks })
            .catch((err: unknown) => ctx.logger.warn({ err }, 'export progress update failed'));
        },
      });
      await uploadFile(
        client,
        dm,
        {
          filename: result.filename,
          content: result.csv,
          title: `${v.k} of ${siteId}`,
        },
        ctx,
      );
      await ctx.audit({
        action: `drm.export.${v.k}`,
        detail: `exported ${result.rowCount} ${v.k} rows in ${result.pages} pages${result.truncated ? ' (truncated)' : ''}`,
        result: 'ok',
        siteId,
      });
      const done = exportDoneMessage(siteId, result, v.f, tz);
      await client.chat.update({
        channel: dm,
        ts: progressTs!,
        text: done.text,
        blocks: done.blocks,
      });
    } catch (e) {
      if (dm && progressTs) {
        const opts = await errorOptions(ctx);
        logError(ctx, 'export failed', e, opts);
        const m = message('The export failed.', errorBlocks("Couldn't export the CSV", e, opts));
        await client.chat
          .update({ channel: dm, ts: progressTs, text: m.text, blocks: m.blocks })
          .catch((err: unknown) => ctx.logger.error({ err }, 'could not show the export failure'));
      } else {
        await respondError(ctx, "Couldn't export the CSV", e);
      }
    }
  },
});
