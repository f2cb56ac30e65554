/**
 * FairPlay certificate submission (admins). Checks before anything is fetched (inline errors):
 * both files attached, the ASK given, the key password at most 32 bytes. Then "Registering…",
 * the files are read from Slack with the bot token into memory (never disk, never the store),
 * sent as multipart form data by the API client, and the modal ends on the result. The ASK and
 * the password are never logged, audited or shown back; on failure the form opens empty again.
 */
import type { App, SlackViewAction } from '@slack/bolt';
import { z } from 'zod';
import { ValidationError } from '../../../api/errors.js';
import { checkKeyPassword } from '../../../api/validate.js';
import { FPS_FILE_MAX_BYTES, registerFpsCert } from '../../../ops/service/index.js';
import type { AppDeps } from '../../deps.js';
import { FileReadError, readSlackFileBytes } from '../../files.js';
import { explainError } from '../../render/errors.js';
import { esc } from '../../render/mrkdwn.js';
import { SVC_VIEWS } from '../../render/svc/common.js';
import { FPS_BLOCK, fpsCertDoneView, fpsCertModal } from '../../render/svc/fpscert.js';
import { infoView } from '../../render/svc/settings.js';
import { requireAdminForView } from '../../roles.js';
import { serviceFor } from '../actions/svc-support.js';
import { audited, errorOptions, logError, modalMeta, viewContext } from '../support.js';

const metaSchema = z.object({ w: z.string().min(1), s: z.string().regex(/^[A-Za-z0-9]{4}$/) });

// biome-ignore lint/suspicious/noExplicitAny: view state values are loosely typed by Bolt
function fileId(values: any, block: string): string | undefined {
  const files = values?.[block]?.file?.files;
  const id = Array.isArray(files) ? files[0]?.id : undefined;
  return typeof id === 'string' && id ? id : undefined;
}

export function register(app: App, deps: AppDeps): void {
  app.view<SlackViewAction>(SVC_VIEWS.fpsCert, async ({ ack, body, view, client, context }) => {
    const ctx = viewContext(deps, { body, client, context }, '/drm');
    const meta = await modalMeta(
      ctx,
      ack,
      metaSchema,
      view.private_metadata,
      FPS_BLOCK.ask,
      'This form is out of date: run /drm fpscert again.',
    );
    if (!meta) return;
    if (
      !(await requireAdminForView(
        ctx,
        ack,
        FPS_BLOCK.ask,
        'register a FairPlay certificate',
        'fpscert.upload',
      ))
    )
      return;
    const values = view.state.values;
    const certId = fileId(values, FPS_BLOCK.cert);
    const keyId = fileId(values, FPS_BLOCK.key);
    const ask = (values[FPS_BLOCK.ask]?.value?.value ?? '').trim();
    const password = values[FPS_BLOCK.password]?.value?.value ?? '';
    const errors: Record<string, string> = {};
    if (!certId) errors[FPS_BLOCK.cert] = 'Attach the certificate (.der or .cer).';
    if (!keyId) errors[FPS_BLOCK.key] = 'Attach the private key (.pem).';
    if (!ask) errors[FPS_BLOCK.ask] = 'Type the application secret key (ASK).';
    const pw = checkKeyPassword(password);
    if (pw) errors[FPS_BLOCK.password] = pw;
    if (Object.keys(errors).length > 0) {
      await ack({ response_action: 'errors', errors });
      return;
    }
    await ack({
      response_action: 'update',
      view: infoView('FairPlay certificate', 'Registering the certificate…') as never,
    });
    const siteForForm = meta.s;
    try {
      const { svc, siteId } = await serviceFor(ctx, meta.s);
      const [cert, key] = await Promise.all([
        readSlackFileBytes(deps, client, certId!, FPS_FILE_MAX_BYTES),
        readSlackFileBytes(deps, client, keyId!, FPS_FILE_MAX_BYTES),
      ]);
      const r = await audited(
        ctx,
        'fpscert.upload',
        `certificate ${cert.name}, key ${key.name}`,
        siteId,
        () =>
          registerFpsCert(svc, siteId, {
            ask,
            keyPw: password,
            fpsCert: { filename: cert.name, data: cert.data },
            privateKey: { filename: key.name, data: key.data },
          }),
      );
      await client.views.update({ view_id: view.id, view: fpsCertDoneView(r) as never });
    } catch (e) {
      let lines: string[];
      if (e instanceof FileReadError) lines = [`• ${esc(e.message)}`];
      else if (e instanceof ValidationError) lines = e.issues.map((i) => `• ${esc(i.message)}`);
      else {
        const opts = await errorOptions(ctx);
        logError(ctx, 'fpscert upload failed', e, opts);
        const ex = explainError(e, opts);
        lines = [`• ${ex.why}`, ex.next];
      }
      await client.views
        .update({
          view_id: view.id,
          view: fpsCertModal(siteForForm, JSON.stringify(meta), lines) as never,
        })
        .catch((err: unknown) => ctx.logger.error({ err }, 'could not update the certificate view'));
    }
  });
}
