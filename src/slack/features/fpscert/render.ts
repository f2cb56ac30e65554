/**
 * `/drm fpscert`: the FairPlay certificate modal and its result views.
 *
 * Files only for the key material: the certificate (.der/.cer) and the private key (.pem) are
 * file inputs, as the spec's upload takes them (`fps_cert`, `private_key` are files). No view asks
 * anyone to paste a private key: there is no text input for it (tested).
 *
 * The ASK and the key password are strings in the spec (`ask`, `key_pw`), and they are asked here
 * as one-time text fields, not as files. That is the less exposing of the two ways the spec
 * allows: an uploaded file stays in the workspace's Slack files (searchable by admins, kept by
 * retention policies and exports) and a bot token cannot delete a user's file, and a password
 * file kept next to the key file it unlocks would undo the key's encryption. A field's value
 * goes only to this app in the submission, is sent to the service and then dropped: never
 * echoed, logged, audited or stored, and after a failure the form opens empty. Slack has no
 * masked input, so the form says the text is visible while typing. See docs/security.md.
 */
import type { FpsCertRegistered } from '../../../ops/service/fpscert.js';
import { ASK_MAX_CHARS } from '../../../ops/service/fpscert.js';
import { type Block, type ModalView, modal, plain, section, textInput } from '../../kit/blocks.js';
import { code, esc } from '../../kit/mrkdwn.js';
import { infoView } from '../../kit/svc-support.js';
import { SVC_VIEWS } from '../../kit/svc-values.js';

export const FPS_BLOCK = {
  cert: 'svc_fps_cert',
  /** The private key file. */
  keyFile: 'svc_fps_key_file',
  /**
   * Forms opened by older versions had the key in this block (a file, or pasted text). Read for
   * a file only; pasted text is refused with "attach the .pem file".
   */
  legacyKey: 'svc_fps_key',
  ask: 'svc_fps_ask',
  password: 'svc_fps_pw',
} as const;

export function fpsCertModal(siteId: string, privateMetadata: string, failure?: string[]): ModalView {
  const blocks: Block[] = [];
  if (failure?.length) {
    blocks.push(
      section(
        `:warning: *The certificate was not registered.*\n${failure.join('\n')}\nAttach the certificate and the private key file, and type the ASK and the password again.`,
      ),
    );
  }
  blocks.push(
    section(
      `Register the FairPlay Streaming certificate of site ${code(siteId)}. The files are read from Slack in memory and sent to the service only; nothing is stored. The private key is taken as a file only, never as text.`,
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
      label: plain('Private key file (.pem)'),
      element: { type: 'file_input', action_id: 'file', filetypes: ['pem'], max_files: 1 },
      hint: plain(
        'The attached file stays in your Slack files: delete it after registering (you are reminded). Keep it encrypted with its password.',
      ),
    },
    textInput(FPS_BLOCK.ask, 'Application secret key (ASK)', {
      maxLength: ASK_MAX_CHARS,
      hint: 'Typed once, sent to the service only: never shown again, logged or stored. Slack shows it while you type.',
    }),
    textInput(FPS_BLOCK.password, 'Private key password (at most 32 bytes)', {
      maxLength: 32,
      hint: 'Typed here, not kept in a file next to the key. Slack has no hidden input: it is visible while you type, and is never shown again.',
    }),
  );
  return modal(SVC_VIEWS.fpsCert, 'FairPlay certificate', blocks, { submit: 'Register', privateMetadata });
}

/** The result: the admin is told to delete the key file they attached (it holds a secret). */
export function fpsCertDoneView(r: FpsCertRegistered): ModalView {
  const lines = [
    `:white_check_mark: Registered the FairPlay certificate of site ${code(r.siteId)}: ${esc(r.certificate.filename)} (${r.certificate.bytes} bytes) with the private key (${r.privateKey.bytes} bytes).`,
  ];
  lines.push(
    `:warning: *Delete the private key file ${esc(r.privateKey.filename)} you attached*: Slack keeps uploaded files (admins can search them, retention policies keep them) and this bot cannot delete them. In Slack, open it from *Files* and choose *Delete file*.`,
  );
  lines.push(
    `The certificate file ${esc(r.certificate.filename)} stays in your Slack files. It is not secret, but you can delete it there if you wish (open it from *Files*, then *Delete file*).`,
  );
  return infoView('Certificate registered', lines.join('\n\n'));
}
