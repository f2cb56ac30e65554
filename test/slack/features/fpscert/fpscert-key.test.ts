/**
 * The FairPlay views take every secret as a file: the form has file inputs only (certificate,
 * private key, and the text file with the ASK and the key password), no text input at all; a
 * problem shows under the input it concerns; the admin is told to delete the key and secrets files
 * afterwards. See src/slack/features/fpscert/render.ts and docs/security.md.
 */
import { describe, expect, it } from 'vitest';
import { FPS_BLOCK, fpsCertDoneView, fpsCertModal } from '../../../../src/slack/features/fpscert/render.js';
import type { ModalView } from '../../../../src/slack/kit/blocks/blocks.js';

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
  hint?: { text: string };
  element?: { type: string; multiline?: boolean; filetypes?: string[] };
}

const blocksOf = (v: ModalView) => v.blocks as InputBlock[];
const inputs = (v: ModalView) => blocksOf(v).filter((b) => b.type === 'input');

/** Every view the feature can show (fresh, after failures, and the result). */
const views: Array<[string, ModalView]> = [
  ['fresh', fpsCertModal('DEMO', '{}')],
  ['after a failure', fpsCertModal('DEMO', '{}', ['• The service refused the certificate.'])],
  [
    'with file problems',
    fpsCertModal('DEMO', '{}', undefined, {
      [FPS_BLOCK.keyFile]: 'The file key.pem is not a PEM private key.',
      [FPS_BLOCK.secrets]: 'The secrets file has no PASSWORD line.',
    }),
  ],
  ['done', fpsCertDoneView(done, 'fps-secrets.txt')],
];

describe('FairPlay certificate views: files only', () => {
  it.each(views)('%s: no text input at all (no key, ASK or password is typed or pasted)', (_name, v) => {
    for (const b of inputs(v)) expect(b.element?.type).toBe('file_input');
    expect(JSON.stringify(v)).not.toMatch(
      /paste (it|the (private )?key|its text)|\btype (the|your) (ASK|password)/i,
    );
  });

  it('the certificate, the key and the secrets file are required file inputs, in that order', () => {
    const v = fpsCertModal('DEMO', '{}');
    const byId = (id: string) => inputs(v).find((b) => b.block_id === id);
    expect(inputs(v).map((b) => b.block_id)).toEqual([FPS_BLOCK.cert, FPS_BLOCK.keyFile, FPS_BLOCK.secrets]);
    expect(byId(FPS_BLOCK.cert)).toMatchObject({
      element: { type: 'file_input', filetypes: ['der', 'cer'] },
    });
    expect(byId(FPS_BLOCK.keyFile)).toMatchObject({ element: { type: 'file_input', filetypes: ['pem'] } });
    expect(byId(FPS_BLOCK.secrets)).toMatchObject({ element: { type: 'file_input', filetypes: ['txt'] } });
    for (const b of inputs(v)) expect(b.optional).toBeUndefined();
    for (const id of [FPS_BLOCK.legacyKey, FPS_BLOCK.legacyAsk, FPS_BLOCK.legacyPassword])
      expect(byId(id)).toBeUndefined();
  });

  it("the secrets file's hint documents the format with an example", () => {
    const hint = inputs(fpsCertModal('DEMO', '{}')).find((b) => b.block_id === FPS_BLOCK.secrets)?.hint?.text;
    expect(hint).toMatch(/ASK=\w+/);
    expect(hint).toMatch(/PASSWORD=/);
    expect(hint).toContain('32 bytes');
  });

  it('each file problem shows right under its input', () => {
    const v = views[2]![1];
    const b = blocksOf(v);
    const next = (id: string) => JSON.stringify(b[b.findIndex((x) => x.block_id === id) + 1]);
    expect(next(FPS_BLOCK.keyFile)).toContain('not a PEM private key');
    expect(next(FPS_BLOCK.secrets)).toContain('no PASSWORD line');
    expect(next(FPS_BLOCK.cert)).not.toContain(':warning:');
  });

  it('the result tells the admin to delete the key file and the secrets file', () => {
    const text = JSON.stringify(fpsCertDoneView(done, 'fps-secrets.txt'));
    expect(text).toContain('Delete the private key file k.pem and the secrets file fps-secrets.txt');
  });
});
