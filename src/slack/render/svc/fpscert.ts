/**
 * `/drm fpscert`: the FairPlay certificate modal (the certificate as a file input, the private
 * key pasted as PEM text, the application secret key and the key password) and its result views.
 * The private key is a text input, not a file (review #16): an uploaded file would stay in the
 * workspace's files (searchable by admins, kept by retention policies) and a bot token usually
 * cannot delete a user's file. The certificate is binary and not secret: it stays a file input.
 * The key, the ASK and the password are never shown back: after a failure the form opens empty.
 */
import type { FpsCertRegistered } from '../../../ops/service/fpscert.js';
import { ASK_MAX_CHARS } from '../../../ops/service/fpscert.js';
import { type Block, type ModalView, modal, section, textInput } from '../blocks.js';
import { code, esc } from '../mrkdwn.js';
import { SVC_VIEWS } from './common.js';
import { infoView } from './settings.js';

export const FPS_BLOCK = {
  cert: 'svc_fps_cert',
  key: 'svc_fps_key',
  ask: 'svc_fps_ask',
  password: 'svc_fps_pw',
} as const;

/**
 * Slack's longest plain_text_input. A FairPlay private key (RSA 1024, PEM, encrypted or not) is
 * about 900-1,900 characters, so it fits.
 */
export const FPS_KEY_MAX_CHARS = 3000;

export function fpsCertModal(siteId: string, privateMetadata: string, failure?: string[]): ModalView {
  const blocks: Block[] = [];
  if (failure?.length) {
    blocks.push(
      section(
        `:warning: *The certificate was not registered.*\n${failure.join('\n')}\nAttach the certificate and paste the key, the ASK and the password again.`,
      ),
    );
  }
  blocks.push(
    section(
      `Register the FairPlay Streaming certificate of site ${code(siteId)}. The certificate is read from Slack in memory, the private key is pasted as text (so it is never kept as a file in Slack), and both are sent to the service only; nothing is stored.`,
    ),
    {
      type: 'input',
      block_id: FPS_BLOCK.cert,
      label: { type: 'plain_text', text: 'Certificate (.der or .cer)' },
      element: { type: 'file_input', action_id: 'file', filetypes: ['der', 'cer'], max_files: 1 },
    },
    textInput(FPS_BLOCK.key, 'Private key (PEM text)', {
      multiline: true,
      maxLength: FPS_KEY_MAX_CHARS,
      placeholder: '-----BEGIN PRIVATE KEY----- … -----END PRIVATE KEY-----',
      hint: 'Open the .pem file in a text editor and paste all of it, BEGIN and END lines included. Do not upload it as a file.',
    }),
    textInput(FPS_BLOCK.ask, 'Application secret key (ASK)', { maxLength: ASK_MAX_CHARS }),
    textInput(FPS_BLOCK.password, 'Private key password (at most 32 bytes)', {
      maxLength: 32,
      hint: 'Slack has no hidden input: the password is visible while you type it, and is never shown again.',
    }),
  );
  return modal(SVC_VIEWS.fpsCert, 'FairPlay certificate', blocks, { submit: 'Register', privateMetadata });
}

/**
 * The result. `keyFile`: the key came as an uploaded file (a form opened before the key became a
 * text input): the admin is told to delete that file, which holds a secret.
 */
export function fpsCertDoneView(r: FpsCertRegistered, opts: { keyFile?: boolean } = {}): ModalView {
  const lines = [
    `:white_check_mark: Registered the FairPlay certificate of site ${code(r.siteId)}: ${esc(r.certificate.filename)} (${r.certificate.bytes} bytes) with the private key (${r.privateKey.bytes} bytes).`,
  ];
  if (opts.keyFile) {
    lines.push(
      `:warning: *Delete the private key file ${esc(r.privateKey.filename)} you attached*: Slack keeps uploaded files (admins can search them, retention policies keep them) and this bot cannot delete them. In Slack, open it from *Files* and choose *Delete file*. Next time, paste the key as text.`,
    );
  }
  lines.push(
    `The certificate file ${esc(r.certificate.filename)} stays in your Slack files. It is not secret, but you can delete it there if you wish (open it from *Files*, then *Delete file*).`,
  );
  return infoView('Certificate registered', lines.join('\n\n'));
}
