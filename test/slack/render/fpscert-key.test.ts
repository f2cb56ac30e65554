/** The FairPlay key: a .pem file or pasted text; after a file the admin is told to delete it. */
import { describe, expect, it } from 'vitest';
import { FPS_BLOCK, fpsCertDoneView, fpsCertModal } from '../../../src/slack/features/fpscert/render.js';

const done = {
  siteId: 'DEMO',
  certificate: { filename: 'fps.der', bytes: 7 },
  privateKey: { filename: 'private-key.pem', bytes: 90 },
};

describe('FairPlay certificate views', () => {
  it('two file inputs (certificate, key) and the key may be pasted instead: both key inputs optional', () => {
    const v = fpsCertModal('DEMO', '{}');
    const byId = (id: string) => v.blocks.find((b) => 'block_id' in b && b.block_id === id);
    expect(byId(FPS_BLOCK.cert)).toMatchObject({
      element: { type: 'file_input', filetypes: ['der', 'cer'] },
    });
    expect(byId(FPS_BLOCK.cert)).not.toHaveProperty('optional');
    expect(byId(FPS_BLOCK.keyFile)).toMatchObject({
      optional: true,
      element: { type: 'file_input', filetypes: ['pem'], max_files: 1 },
    });
    expect(byId(FPS_BLOCK.key)).toMatchObject({
      optional: true,
      element: { type: 'plain_text_input', multiline: true },
    });
    expect(JSON.stringify(v).match(/"file_input"/g)).toHaveLength(2);
    expect(JSON.stringify(byId(FPS_BLOCK.keyFile))).toContain('stays in your Slack files');
  });

  it('after a pasted key: may delete the certificate file; after a key file: must delete the key file', () => {
    const pasted = JSON.stringify(fpsCertDoneView(done));
    expect(pasted).toContain('certificate file fps.der');
    expect(pasted).not.toContain('Delete the private key file');
    const asFile = JSON.stringify(
      fpsCertDoneView({ ...done, privateKey: { filename: 'k.pem', bytes: 90 } }, { keyFile: true }),
    );
    expect(asFile).toContain('Delete the private key file k.pem');
  });
});
