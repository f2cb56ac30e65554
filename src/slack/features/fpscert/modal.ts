/**
 * FairPlay certificate submission (admins). Checks before anything is fetched (inline errors):
 * the certificate and the private key attached as files (files only: no view takes a pasted key,
 * see render.ts), the ASK given, the key password at most 32 bytes. Then the role re-check with
 * no Slack call before the ack (the kit's gate), "Registering…", both files are read from Slack
 * with the bot token into memory (never disk, never the store), the key file is checked for the
 * PEM shape (the form comes back if it is not), both are sent as multipart form data by the API
 * client, and the modal ends on the result (which tells the admin to delete the key file). The
 * key, the ASK and the password are never logged, audited or shown back; on failure the form
 * opens empty again.
 */
import { z } from 'zod';
import { ValidationError } from '../../../api/errors.js';
import { checkKeyPassword, SITE_ID_RE } from '../../../api/validate.js';
import { FPS_FILE_MAX_BYTES, registerFpsCert } from '../../../ops/service/index.js';
import { explainError } from '../../kit/errors.js';
import { FileReadError, readSlackFileBytes } from '../../kit/files.js';
import { modal } from '../../kit/interactions.js';
import { esc } from '../../kit/mrkdwn.js';
import { audited, errorOptions, logError } from '../../kit/support.js';
import { infoView, serviceFor } from '../../kit/svc-support.js';
import { SVC_VIEWS } from '../../kit/svc-values.js';
import { FPS_BLOCK, fpsCertDoneView, fpsCertModal } from './render.js';

const metaSchema = z.object({ w: z.string().min(1), s: z.string().regex(SITE_ID_RE) });

// biome-ignore lint/suspicious/noExplicitAny: view state values are loosely typed by Bolt
function fileId(values: any, block: string): string | undefined {
  const files = values?.[block]?.file?.files;
  const id = Array.isArray(files) ? files[0]?.id : undefined;
  return typeof id === 'string' && id ? id : undefined;
}

/**
 * One PEM private key block (PKCS#1 "RSA PRIVATE KEY", PKCS#8, or "ENCRYPTED PRIVATE KEY"):
 * matching BEGIN and END lines around base64 text. The service checks the key itself.
 */
const PEM_KEY =
  /^-----BEGIN ([A-Z0-9 ]*PRIVATE KEY)-----\n[\s\S]*?[A-Za-z0-9+/]{16}[\s\S]*?\n-----END \1-----\n$/;

/**
 * A key file's text as PEM: Windows line ends made "\n", spaces around the whole trimmed, and
 * one final newline. Header lines of old encrypted keys (Proc-Type, DEK-Info) and blank lines
 * are kept.
 */
export function normalisePem(text: string): string {
  const t = text.replace(/\r\n?/g, '\n').trim();
  return t ? `${t}\n` : '';
}

type Meta = z.infer<typeof metaSchema>;
interface Data {
  certId: string;
  keyFileId: string;
  ask: string;
  password: string;
}

const registering = () => infoView('FairPlay certificate', 'Registering the certificate…');

export const fpsCertForm = modal<Meta, Data>({
  name: 'fpscert.upload',
  command: '/drm',
  callbackId: SVC_VIEWS.fpsCert,
  meta: metaSchema,
  stale: { block: FPS_BLOCK.ask, text: 'This form is out of date: run /drm fpscert again.' },
  role: 'admin',
  gate: () => ({
    block: FPS_BLOCK.ask,
    what: 'register a FairPlay certificate',
    action: 'fpscert.upload',
    pending: registering(),
  }),
  ackView: registering,
  failure: "Couldn't register the FairPlay certificate",
  check(_ctx, _meta, view) {
    const values = view.state.values;
    const certId = fileId(values, FPS_BLOCK.cert);
    // The key file block, or (forms opened by an older version) a file in the old key block.
    const keyFileId = fileId(values, FPS_BLOCK.keyFile) ?? fileId(values, FPS_BLOCK.legacyKey);
    const ask = (values[FPS_BLOCK.ask]?.value?.value ?? '').trim();
    const password = values[FPS_BLOCK.password]?.value?.value ?? '';
    const errors: Record<string, string> = {};
    if (!certId) errors[FPS_BLOCK.cert] = 'Attach the certificate (.der or .cer).';
    if (!keyFileId) {
      // An old form may still have a text box for the key: its text is never used.
      const where =
        values[FPS_BLOCK.legacyKey] && !values[FPS_BLOCK.keyFile] ? FPS_BLOCK.legacyKey : FPS_BLOCK.keyFile;
      errors[where] = 'Attach the private key as a .pem file (a pasted key is not accepted).';
    }
    if (!ask) errors[FPS_BLOCK.ask] = 'Type the application secret key (ASK).';
    const pw = checkKeyPassword(password);
    if (pw) errors[FPS_BLOCK.password] = pw;
    if (Object.keys(errors).length > 0 || !certId || !keyFileId) return { errors };
    return { ok: { certId, keyFileId, ask, password } };
  },
  async submit(ctx, meta, { certId, keyFileId, ask, password }, { view, client }) {
    const deps = ctx.deps;
    try {
      const { svc, siteId } = await serviceFor(ctx, meta.s);
      const [cert, key] = await Promise.all([
        readSlackFileBytes(deps, client, certId, FPS_FILE_MAX_BYTES),
        readSlackFileBytes(deps, client, keyFileId, FPS_FILE_MAX_BYTES),
      ]);
      if (!PEM_KEY.test(normalisePem(new TextDecoder().decode(key.data)))) {
        throw new FileReadError(
          `The file ${key.name} is not a PEM private key (-----BEGIN … PRIVATE KEY----- … -----END … PRIVATE KEY-----).`,
        );
      }
      const r = await audited(
        ctx,
        'fpscert.upload',
        `certificate ${cert.name}, key file ${key.name}`,
        siteId,
        () =>
          registerFpsCert(svc, siteId, {
            ask,
            keyPw: password,
            fpsCert: { filename: cert.name, data: cert.data },
            privateKey: { filename: key.name, data: key.data },
          }),
      );
      await client.views.update({
        view_id: view.id,
        view: fpsCertDoneView(r),
      });
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
          view: fpsCertModal(meta.s, JSON.stringify(meta), lines),
        })
        .catch((err: unknown) => ctx.logger.error({ err }, 'could not update the certificate view'));
    }
  },
});
