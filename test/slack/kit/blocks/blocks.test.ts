import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  actions,
  type Block,
  button,
  confirmDialog,
  fields,
  fitMessage,
  fitView,
  header,
  LIMITS,
  message,
  modal,
  section,
  textInput,
} from '../../../../src/slack/kit/blocks/blocks.js';

function checkBlock(b: Block): void {
  if (b.type === 'section') {
    if (b.text) expect(b.text.text.length).toBeLessThanOrEqual(LIMITS.sectionText);
    expect((b.fields ?? []).length).toBeLessThanOrEqual(LIMITS.fields);
    for (const f of b.fields ?? []) expect(f.text.length).toBeLessThanOrEqual(LIMITS.fieldText);
  }
  if (b.type === 'header') expect(b.text.text.length).toBeLessThanOrEqual(LIMITS.header);
  if (b.type === 'actions') {
    expect(b.elements.length).toBeLessThanOrEqual(LIMITS.actionsElements);
    for (const e of b.elements)
      if (e.type === 'button') expect(e.text.text.length).toBeLessThanOrEqual(LIMITS.buttonText);
  }
}

describe('builders', () => {
  it('snapshot of a typical card', () => {
    const blocks = [
      header('Job 4812 · movie-trailer-01'),
      section('Status', {
        fields: fields([
          ['Tasks', '12'],
          ['Failed', '1'],
        ]),
      }),
      actions([
        button('Refresh', 'job_refresh', { value: '4812', style: 'primary' }),
        button('Cancel', 'job_cancel', {
          style: 'danger',
          confirm: confirmDialog(
            'Cancel job?',
            'Job `4812` will be cancelled.',
            'Cancel job',
            'Keep',
            'danger',
          ),
        }),
      ]),
    ];
    expect(blocks).toMatchSnapshot();
  });
  it('cuts long texts to the limits', () => {
    const long = 'x'.repeat(5000);
    checkBlock(header(long));
    checkBlock(section(long, { fields: Array(15).fill(long) }));
    checkBlock(actions(Array.from({ length: 30 }, (_, i) => button(long, `a${i}`))));
    const m = modal('cb', 'A very long modal title indeed', [textInput('b', 'Label')], {
      submit: 'Submit it now please ok',
    });
    expect(m.title.text.length).toBeLessThanOrEqual(24);
    expect(m.submit!.text.length).toBeLessThanOrEqual(24);
  });
  it('empty section text becomes a space (Slack refuses empty text)', () => {
    expect(section('')).toEqual({ type: 'section', text: { type: 'mrkdwn', text: ' ' } });
  });
  it('property: any list length stays within message and view limits, with an "and N more" line', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), (n) => {
        const blocks = Array.from({ length: n }, (_, i) => section(`row ${i}`));
        const msg = fitMessage(blocks, (h) => `and ${h} more: use Export CSV`);
        expect(msg.length).toBe(Math.min(n, LIMITS.messageBlocks));
        if (n > LIMITS.messageBlocks) {
          const last = msg[msg.length - 1]!;
          expect(last.type).toBe('context');
          expect(JSON.stringify(last)).toContain(`and ${n - 49} more`);
        }
        expect(fitView(blocks).length).toBe(Math.min(n, LIMITS.viewBlocks));
        expect(message('t', blocks).blocks!.length).toBeLessThanOrEqual(50);
      }),
    );
  });
});
