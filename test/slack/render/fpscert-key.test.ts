/** Review #16: the FairPlay private key is never a Slack file; the admin is told what to delete. */
import { describe, expect, it } from 'vitest';
import { FPS_BLOCK, fpsCertDoneView, fpsCertModal } from '../../../src/slack/render/svc/fpscert.js';

const done = {
  siteId: 'DEMO',
  certificate: { filename: 'fps.der', bytes: 7 },
  privateKey: { filename: 'private-key.pem', bytes: 90 },
};

describe('FairPlay certificate views', () => {
  it('the key is a multiline text input; only the certificate is a file input', () => {
    const v = fpsCertModal('DEMO', '{}');
    const byId = (id: string) => v.blocks.find((b) => 'block_id' in b && b.block_id === id);
    expect(byId(FPS_BLOCK.key)).toMatchObject({ element: { type: 'plain_text_input', multiline: true } });
    expect(byId(FPS_BLOCK.cert)).toMatchObject({ element: { type: 'file_input' } });
    expect(JSON.stringify(v).match(/file_input/g)).toHaveLength(1);
  });

  it('after a pasted key: may delete the certificate file; after a key file: must delete the key file', () => {
    const pasted = JSON.stringify(fpsCertDoneView(done));
    expect(pasted).toContain('certificate file fps.der');
    expect(pasted).not.toContain('Delete the private key file');
    const legacy = JSON.stringify(
      fpsCertDoneView({ ...done, privateKey: { filename: 'k.pem', bytes: 90 } }, { keyFile: true }),
    );
    expect(legacy).toContain('Delete the private key file k.pem');
  });
});
