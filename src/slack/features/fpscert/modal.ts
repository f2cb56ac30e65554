/**
 * FairPlay certificate submission (admins). Checks before anything is fetched (inline errors):
 * the certificate, the private key and the secrets file (ASK and key password, see
 * secrets-file.ts) attached as files. Files only: no view takes a pasted key or a typed secret
 * (render.ts), and a form opened by an older version, with a key text box or ASK and password
 * text fields, is refused with an inline error and its text never used. Then the role re-check
 * with no Slack call before the ack (the kit's gate), "Registering…", the three files are read
 * from Slack with the bot token into memory (never disk, never the store), the key file is
 * checked for the PEM shape and the secrets file is parsed; a problem brings the form back with
 * the reason under the input it concerns (the check needs the file's bytes, which cannot be
 * fetched before the 3-second ack, so it is not a Slack `errors` answer). Both files are sent as
 * multipart form data by the API client, and the modal ends on the result (which tells the admin
 * to delete the key and secrets files). The key, the ASK and the password are never logged,
 * audited or shown back; on failure the form opens empty again.
 */
import { z } from 'zod';
import { ValidationError } from '../../../api/errors.js';
import {
  checkPemPrivateKey,
  FPS_FILE_MAX_BYTES,
  FPS_KEY_MAX_BYTES,
  registerFpsCert,
} from '../../../ops/service/index.js';
import type { ModalView } from '../../kit/blocks/blocks.js';
import { esc } from '../../kit/blocks/mrkdwn.js';
import { issueText } from '../../kit/blocks/next-step.js';
import { explainError } from '../../kit/context/errors.js';
import { audited, errorOptions } from '../../kit/context/support.js';
import { adminPending, modal } from '../../kit/interactions/registry.js';
import { FileReadError, readSlackFileBytes } from '../../kit/web/files.js';
import { infoView, serviceFor } from '../../shared/svc/support.js';
import { SVC_VIEWS, siteIdValue } from '../../shared/svc/values.js';
import { FPS_BLOCK, type FpsFileBlock, fpsCertDoneView, fpsCertModal } from './render.js';
import { parseSecretsFile, SECRETS_FILE_MAX_BYTES } from './secrets-file.js';

const metaSchema = z.object({ w: z.string().min(1), s: siteIdValue });

// biome-ignore lint/suspicious/noExplicitAny: view state values are loosely typed by Bolt
function fileId(values: any, block: string): string | undefined {
  const files = values?.[block]?.file?.files;
  const id = Array.isArray(files) ? files[0]?.id : undefined;
  return typeof id === 'string' && id ? id : undefined;
}

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
  secretsId: string;
}

/** A problem with one of the files, shown under its input when the form comes back. */
class FileProblem extends Error {
  constructor(
    readonly block: FpsFileBlock,
    message: string,
  ) {
    super(message);
    this.name = 'FileProblem';
  }
}

/** A download's FileReadError, tied to the input of the file it concerns. */
async function readFor<T>(block: FpsFileBlock, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof FileReadError) throw new FileProblem(block, e.message);
    throw e;
  }
}

const registering = () => infoView('FairPlay certificate', 'Registering the certificate…');

export const fpsCertForm = modal<Meta, Data>({
  name: 'fpscert.upload',
  command: '/drm',
  callbackId: SVC_VIEWS.fpsCert,
  meta: metaSchema,
  stale: { block: FPS_BLOCK.cert, text: 'This form is out of date: run /drm fpscert again.' },
  ...adminPending(
    { block: FPS_BLOCK.cert, what: 'register a FairPlay certificate', action: 'fpscert.upload' },
    registering,
  ),
  failure: "Couldn't register the FairPlay certificate",
  check(_ctx, _meta, view) {
    const values = view.state.values;
    const errors: Record<string, string> = {};
    // A form opened by an older version asked for the ASK and the password as text: refused, and
    // the text is never read (nothing below looks at these blocks' values).
    const legacy = [FPS_BLOCK.legacyAsk, FPS_BLOCK.legacyPassword].find((b) => values[b] !== undefined);
    if (legacy && values[FPS_BLOCK.secrets] === undefined) {
      errors[legacy] =
        'This form is out of date: it asked for secrets as text. Close it and run /drm fpscert again: the ASK and the password now come in a file.';
      return { errors };
    }
    const certId = fileId(values, FPS_BLOCK.cert);
    // The key file block, or (forms opened by an older version) a file in the old key block.
    const keyFileId = fileId(values, FPS_BLOCK.keyFile) ?? fileId(values, FPS_BLOCK.legacyKey);
    const secretsId = fileId(values, FPS_BLOCK.secrets);
    if (!certId) errors[FPS_BLOCK.cert] = 'Attach the certificate (.der or .cer).';
    if (!keyFileId) {
      // An old form may still have a text box for the key: its text is never used.
      const where =
        values[FPS_BLOCK.legacyKey] && !values[FPS_BLOCK.keyFile] ? FPS_BLOCK.legacyKey : FPS_BLOCK.keyFile;
      errors[where] = 'Attach the private key as a .pem file (a pasted key is not accepted).';
    }
    if (!secretsId)
      errors[FPS_BLOCK.secrets] =
        'Attach the text file with the ASK and the key password (two lines: ASK=… and PASSWORD=…).';
    if (Object.keys(errors).length > 0 || !certId || !keyFileId || !secretsId) return { errors };
    return { ok: { certId, keyFileId, secretsId } };
  },
  async submit(ctx, meta, { certId, keyFileId, secretsId }, { client }) {
    const deps = ctx.deps;
    try {
      const { svc, siteId } = await serviceFor(ctx, meta.s);
      const [cert, key, secretsFile] = await Promise.all([
        readFor(FPS_BLOCK.cert, () => readSlackFileBytes(deps, client, certId, FPS_FILE_MAX_BYTES)),
        readFor(FPS_BLOCK.keyFile, () => readSlackFileBytes(deps, client, keyFileId, FPS_KEY_MAX_BYTES)),
        readFor(FPS_BLOCK.secrets, () => readSlackFileBytes(deps, client, secretsId, SECRETS_FILE_MAX_BYTES)),
      ]);
      const problems: Partial<Record<FpsFileBlock, string>> = {};
      // One PEM private key block, checked in linear time (ops/service/pem-key.ts).
      if (!checkPemPrivateKey(normalisePem(new TextDecoder().decode(key.data))).ok) {
        problems[FPS_BLOCK.keyFile] =
          `The file ${key.name} is not a PEM private key (-----BEGIN … PRIVATE KEY----- … -----END … PRIVATE KEY-----): attach the .pem key file.`;
      }
      const secrets = parseSecretsFile(secretsFile.data);
      // Zero the secrets file's bytes as soon as they are read (the parsed strings remain until
      // the request is sent; JavaScript strings cannot be wiped).
      secretsFile.data.fill(0);
      if ('problems' in secrets) problems[FPS_BLOCK.secrets] = secrets.problems.join(' ');
      if (Object.keys(problems).length > 0 || !('ok' in secrets))
        return { view: formView(meta, undefined, problems) };
      const r = await audited(
        ctx,
        'fpscert.upload',
        `certificate ${cert.name}, key file ${key.name}, secrets file ${secretsFile.name}`,
        siteId,
        () =>
          registerFpsCert(svc, siteId, {
            ask: secrets.ok.ask,
            keyPw: secrets.ok.password,
            fpsCert: { filename: cert.name, data: cert.data },
            privateKey: { filename: key.name, data: key.data },
          }),
      );
      // Registered: a view Slack will not take is sent as a message, never "not registered".
      return { view: fpsCertDoneView(r, secretsFile.name) };
    } catch (e) {
      if (e instanceof FileProblem) return { view: formView(meta, undefined, { [e.block]: e.message }) };
      if (e instanceof FileReadError) return { view: formView(meta, [`• ${esc(e.message)}`]) };
      if (e instanceof ValidationError)
        return {
          view: formView(
            meta,
            e.issues.map((i) => `• ${esc(issueText(i))}`),
          ),
        };
      const ex = explainError(e, await errorOptions(ctx));
      return { again: { error: e, view: formView(meta, [`• ${ex.why}`, ex.next]) } };
    }
  },
});

/** The form again, empty, with what went wrong (general lines on top, file problems under each input). */
function formView(
  meta: Meta,
  lines: string[] | undefined,
  problems: Partial<Record<FpsFileBlock, string>> = {},
): ModalView {
  const escaped = Object.fromEntries(Object.entries(problems).map(([k, v]) => [k, esc(v ?? '')]));
  return fpsCertModal(meta.s, JSON.stringify(meta), lines, escaped);
}
