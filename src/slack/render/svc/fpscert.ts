/**
 * `/drm fpscert`: the FairPlay certificate modal (two file inputs, the application secret key and
 * the key password) and its result views. The ASK and the password are never shown back: after a
 * failure the form opens empty for them.
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

export function fpsCertModal(siteId: string, privateMetadata: string, failure?: string[]): ModalView {
  const blocks: Block[] = [];
  if (failure?.length) {
    blocks.push(
      section(
        `:warning: *The certificate was not registered.*\n${failure.join('\n')}\nAttach the files and type the key and password again.`,
      ),
    );
  }
  blocks.push(
    section(
      `Register the FairPlay Streaming certificate of site ${code(siteId)}. The files are read from Slack in memory and sent to the service only; nothing is stored.`,
    ),
    {
      type: 'input',
      block_id: FPS_BLOCK.cert,
      label: { type: 'plain_text', text: 'Certificate (.der or .cer)' },
      element: { type: 'file_input', action_id: 'file', filetypes: ['der', 'cer'], max_files: 1 },
    },
    {
      type: 'input',
      block_id: FPS_BLOCK.key,
      label: { type: 'plain_text', text: 'Private key (.pem)' },
      element: { type: 'file_input', action_id: 'file', filetypes: ['pem'], max_files: 1 },
    },
    textInput(FPS_BLOCK.ask, 'Application secret key (ASK)', { maxLength: ASK_MAX_CHARS }),
    textInput(FPS_BLOCK.password, 'Private key password (at most 32 bytes)', {
      maxLength: 32,
      hint: 'Slack has no hidden input: the password is visible while you type it, and is never shown again.',
    }),
  );
  return modal(SVC_VIEWS.fpsCert, 'FairPlay certificate', blocks, { submit: 'Register', privateMetadata });
}

export function fpsCertDoneView(r: FpsCertRegistered): ModalView {
  return infoView(
    'Certificate registered',
    `:white_check_mark: Registered the FairPlay certificate of site ${code(r.siteId)}: ${esc(r.certificate.filename)} (${r.certificate.bytes} bytes) with the private key ${esc(r.privateKey.filename)} (${r.privateKey.bytes} bytes).`,
  );
}
