/**
 * `/drm fpscert`: the FairPlay certificate modal and its result views.
 *
 * Files only: the modal has three file inputs and no text input at all. The certificate
 * (.der/.cer) and the private key (.pem) are sent as the spec's `fps_cert` and `private_key`; the
 * ASK and the key password (the spec's `ask` and `key_pw` strings) come from a small text file
 * with two lines, `ASK=…` and `PASSWORD=…` (format and tolerance in secrets-file.ts, shown in the
 * input's hint). Nobody is asked to type or paste a key, an ASK or a password into Slack: typed
 * text shows on screen while typing (Slack has no masked input) and ends up in drafts and screen
 * shares. Uploaded files stay in the workspace's Slack files and a bot token cannot delete them,
 * so the result view reminds the admin to delete the key and the secrets file (tested). The files
 * are read into memory, sent to the service and dropped: never echoed, logged, audited or stored;
 * after a failure the form opens empty, with each problem under the input it concerns.
 * See docs/security.md.
 */
import type { FpsCertRegistered } from '../../../ops/service/fpscert.js';
import { type Block, context, fileInput, type ModalView, modal, section } from '../../kit/blocks/blocks.js';
import { code, esc } from '../../kit/blocks/mrkdwn.js';
import { infoView } from '../../shared/svc/support.js';
import { SVC_VIEWS } from '../../shared/svc/values.js';
import { SECRETS_FILE_EXAMPLE } from './secrets-file.js';

export const FPS_BLOCK = {
  cert: 'svc_fps_cert',
  /** The private key file. */
  keyFile: 'svc_fps_key_file',
  /** The text file with the ASK and the key password. */
  secrets: 'svc_fps_secrets_file',
  /**
   * Forms opened by older versions had the key in this block (a file, or pasted text). Read for
   * a file only; pasted text is refused with "attach the .pem file".
   */
  legacyKey: 'svc_fps_key',
  /** Older forms' text fields for the ASK and the password: refused, never used. */
  legacyAsk: 'svc_fps_ask',
  legacyPassword: 'svc_fps_pw',
} as const;

/** The blocks a problem can be shown under (the form's three file inputs). */
export type FpsFileBlock = typeof FPS_BLOCK.cert | typeof FPS_BLOCK.keyFile | typeof FPS_BLOCK.secrets;

/**
 * The form. After a failed attempt, `failure` holds the general lines (shown on top) and
 * `blockErrors` the problem of each file, shown right under its input (the form comes back empty:
 * Slack does not keep attached files when a view is replaced).
 */
export function fpsCertModal(
  siteId: string,
  privateMetadata: string,
  failure?: string[],
  blockErrors: Partial<Record<FpsFileBlock, string>> = {},
): ModalView {
  const blocks: Block[] = [];
  const hasBlockErrors = Object.values(blockErrors).some(Boolean);
  if (failure?.length || hasBlockErrors) {
    blocks.push(
      section(
        `:warning: *The certificate was not registered.*${failure?.length ? `\n${failure.join('\n')}` : ''}\nAttach the three files again${hasBlockErrors ? ' after fixing what is said under each' : ''}.`,
      ),
    );
  }
  const problem = (b: FpsFileBlock): Block[] =>
    blockErrors[b] ? [context(`:warning: ${blockErrors[b]}`)] : [];
  blocks.push(
    section(
      `Register the FairPlay Streaming certificate of site ${code(siteId)}. Everything is taken as a file: the files are read from Slack in memory and sent to the service only; nothing is stored, logged or shown back.`,
    ),
    fileInput(FPS_BLOCK.cert, 'Certificate (.der or .cer)', ['der', 'cer'], { actionId: 'file' }),
    ...problem(FPS_BLOCK.cert),
    fileInput(FPS_BLOCK.keyFile, 'Private key file (.pem)', ['pem'], {
      actionId: 'file',
      hint: 'The attached file stays in your Slack files: delete it after registering (you are reminded). Keep it encrypted with its password.',
    }),
    ...problem(FPS_BLOCK.keyFile),
    fileInput(FPS_BLOCK.secrets, 'ASK and key password (.txt file)', ['txt'], {
      actionId: 'file',
      hint: `A text file with two lines, the application secret key (ASK) and the private key's password (at most 32 bytes), for example:\n${SECRETS_FILE_EXAMPLE}\nNames in any case, = or :, quotes optional. Delete the file from Slack afterwards (you are reminded).`,
    }),
    ...problem(FPS_BLOCK.secrets),
  );
  return modal(SVC_VIEWS.fpsCert, 'FairPlay certificate', blocks, { submit: 'Register', privateMetadata });
}

/** The result: the admin is told to delete the key and secrets files they attached (they hold secrets). */
export function fpsCertDoneView(r: FpsCertRegistered, secretsFile?: string): ModalView {
  const lines = [
    `:white_check_mark: Registered the FairPlay certificate of site ${code(r.siteId)}: ${esc(r.certificate.filename)} (${r.certificate.bytes} bytes) with the private key (${r.privateKey.bytes} bytes).`,
  ];
  lines.push(
    `:warning: *Delete the private key file ${esc(r.privateKey.filename)} and the secrets file${secretsFile ? ` ${esc(secretsFile)}` : ''} you attached*: Slack keeps uploaded files (admins can search them, retention policies keep them) and this bot cannot delete them. In Slack, open each from *Files* and choose *Delete file*.`,
  );
  lines.push(
    `The certificate file ${esc(r.certificate.filename)} stays in your Slack files. It is not secret, but you can delete it there if you wish (open it from *Files*, then *Delete file*).`,
  );
  return infoView('Certificate registered', lines.join('\n\n'));
}
