/**
 * `/drm fpscert`: the FairPlay certificate modal (the certificate as a file input; the private
 * key as a .pem file input OR pasted as PEM text, exactly one of them; the application secret key
 * and the key password) and its result views. Pasting is offered and recommended: an
 * uploaded key file stays in the workspace's files (searchable by admins, kept by retention
 * policies) and a bot token usually cannot delete a user's file, so after a file upload the done
 * view tells the admin to delete it. The certificate is binary and not secret: a file input.
 * The key, the ASK and the password are never shown back: after a failure the form opens empty.
 */
import type { FpsCertRegistered } from '../../../ops/service/fpscert.js';
import { ASK_MAX_CHARS } from '../../../ops/service/fpscert.js';
import { type Block, type ModalView, modal, plain, section, textInput } from '../../kit/blocks.js';
import { code, esc } from '../../kit/mrkdwn.js';
import { infoView } from '../../kit/svc-support.js';
import { SVC_VIEWS } from '../../kit/svc-values.js';

export const FPS_BLOCK = {
  cert: 'svc_fps_cert',
  key: 'svc_fps_key',
  keyFile: 'svc_fps_key_file',
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
        `:warning: *The certificate was not registered.*\n${failure.join('\n')}\nAttach the certificate, give the key (file or pasted text), the ASK and the password again.`,
      ),
    );
  }
  blocks.push(
    section(
      `Register the FairPlay Streaming certificate of site ${code(siteId)}. The files are read from Slack in memory and sent to the service only; nothing is stored. For the private key, attach the .pem file *or* paste its text: pasting keeps the key out of your Slack files.`,
    ),
    {
      type: 'input',
      block_id: FPS_BLOCK.cert,
      label: plain('Certificate (.der or .cer)'),
      element: { type: 'file_input', action_id: 'file', filetypes: ['der', 'cer'], max_files: 1 },
    },
    {
      type: 'input',
      block_id: FPS_BLOCK.keyFile,
      optional: true,
      label: plain('Private key file (.pem)'),
      element: { type: 'file_input', action_id: 'file', filetypes: ['pem'], max_files: 1 },
      hint: plain(
        'Either this or the pasted text below. An attached key stays in your Slack files until you delete it.',
      ),
    },
    textInput(FPS_BLOCK.key, 'Or paste the private key (PEM text)', {
      multiline: true,
      optional: true,
      maxLength: FPS_KEY_MAX_CHARS,
      placeholder: '-----BEGIN PRIVATE KEY----- … -----END PRIVATE KEY-----',
      hint: 'Open the .pem file in a text editor and paste all of it, BEGIN and END lines included.',
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
 * The result. `keyFile`: the key came as an uploaded file: the admin is told to delete that
 * file, which holds a secret.
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
