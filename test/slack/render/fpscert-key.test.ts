/**
 * The FairPlay views take the key material as files only: no view has a text input for the
 * private key; the only text inputs are the ASK and the key password (one-time fields, see
 * src/slack/features/fpscert/render.ts and docs/security.md); the admin is told to delete the
 * key file afterwards.
 */
import { describe, expect, it } from 'vitest';
import { FPS_BLOCK, fpsCertDoneView, fpsCertModal } from '../../../src/slack/features/fpscert/render.js';
import type { ModalView } from '../../../src/slack/kit/blocks.js';

const done = {
  siteId: 'DEMO',
  certificate: { filename: 'fps.der', bytes: 7 },
  privateKey: { filename: 'k.pem', bytes: 90 },
};

interface InputBlock {
  type: string;
  block_id?: string;
  optional?: boolean;
  label?: { text: string };
  element?: { type: string; multiline?: boolean; filetypes?: string[] };
}

const inputs = (v: ModalView) => (v.blocks as InputBlock[]).filter((b) => b.type === 'input');

/** Every view the feature can show (fresh, after failures, and the result). */
const views: Array<[string, ModalView]> = [
  ['fresh', fpsCertModal('DEMO', '{}')],
  ['after a failure', fpsCertModal('DEMO', '{}', ['• The file key.pem is not a PEM private key.'])],
  ['done', fpsCertDoneView(done)],
];

describe('FairPlay certificate views: files only for the key', () => {
  it.each(views)('%s: no text input for the private key, no multiline input', (_name, v) => {
    for (const b of inputs(v)) {
      if (b.element?.type !== 'plain_text_input') continue;
      expect([FPS_BLOCK.ask, FPS_BLOCK.password]).toContain(b.block_id);
      expect(b.element.multiline).not.toBe(true);
      expect(b.label?.text ?? '').not.toMatch(/private key(?! password)|\bpem\b/i);
    }
    expect(JSON.stringify(v)).not.toMatch(/paste (it|the (private )?key|its text)/i);
  });

  it('the certificate and the key are required file inputs; ASK and password are the only text fields', () => {
    const v = fpsCertModal('DEMO', '{}');
    const byId = (id: string) => inputs(v).find((b) => b.block_id === id);
    expect(byId(FPS_BLOCK.cert)).toMatchObject({
      element: { type: 'file_input', filetypes: ['der', 'cer'] },
    });
    expect(byId(FPS_BLOCK.keyFile)).toMatchObject({ element: { type: 'file_input', filetypes: ['pem'] } });
    expect(byId(FPS_BLOCK.cert)?.optional).toBeUndefined();
    expect(byId(FPS_BLOCK.keyFile)?.optional).toBeUndefined();
    expect(byId(FPS_BLOCK.legacyKey)).toBeUndefined();
    expect(inputs(v).map((b) => b.element?.type)).toEqual([
      'file_input',
      'file_input',
      'plain_text_input',
      'plain_text_input',
    ]);
    expect(JSON.stringify(byId(FPS_BLOCK.ask))).toContain('never shown again, logged or stored');
  });

  it('the result tells the admin to delete the key file', () => {
    expect(JSON.stringify(fpsCertDoneView(done))).toContain('Delete the private key file k.pem');
  });
});
