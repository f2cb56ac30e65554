import { describe, expect, it } from 'vitest';
import { validateView } from '../../../../dev/fakeslack/blocks.js';
import { watchModal } from '../../../../src/slack/features/watch/render-subscriptions.js';
import { type Block, LIMITS, modal, section, textInput } from '../../../../src/slack/kit/blocks/blocks.js';
import {
  FAILURE_BLOCK,
  formAgain,
  type SubmittedView,
} from '../../../../src/slack/kit/interactions/form-again.js';

type State = NonNullable<NonNullable<SubmittedView['state']>['values']>;

/** A view as a submission carries it: what the bot sent, plus the user's state. */
function submitted(view: ReturnType<typeof modal>, values: State): SubmittedView {
  return { ...view, state: { values } };
}

const watchForm = () =>
  watchModal({ workspace: 'T1', channelId: 'C1', siteIds: ['AB12', 'CD34'], defaultSiteId: 'AB12' });
const failure: Block[] = [section(':warning: *It failed*'), section('Try again.')];
const element = (v: { blocks: unknown[] }, id: string) =>
  ((v.blocks as Array<Record<string, unknown>>).find((b) => b.block_id === id)?.element ?? {}) as Record<
    string,
    unknown
  >;

describe('formAgain: a failed form shown again with what was entered', () => {
  it('keeps every choice as the initial value, options as the form lists them, and Slack accepts it', () => {
    const form = watchForm();
    const again = formAgain(
      submitted(form, {
        watch_site: { value: { type: 'static_select', selected_option: { value: 'CD34' } } },
        watch_statuses: {
          value: { type: 'checkboxes', selected_options: [{ value: 'DM600' }, { value: 'DM500' }] },
        },
        watch_content: { value: { type: 'plain_text_input', value: 'promo-*' } },
        watch_mode: { value: { type: 'radio_buttons', selected_option: { value: 'failures' } } },
      }),
      failure,
    );
    if (!again) throw new Error('expected the form again');
    expect(again.callback_id).toBe(form.callback_id);
    expect(again.private_metadata).toBe(form.private_metadata);
    expect(again.submit).toEqual(form.submit);
    expect(again.blocks.slice(0, 2).map((b) => b.block_id)).toEqual([
      `${FAILURE_BLOCK}_0`,
      `${FAILURE_BLOCK}_1`,
    ]);
    const site = element(again, 'watch_site');
    expect(site.initial_option).toEqual((site.options as unknown[])[1]);
    expect(
      (element(again, 'watch_statuses').initial_options as Array<{ value: string }>).map((o) => o.value),
    ).toEqual(['DM600', 'DM500']);
    expect(element(again, 'watch_content').initial_value).toBe('promo-*');
    expect(element(again, 'watch_mode').initial_option).toMatchObject({ value: 'failures' });
    expect(validateView(again)).toEqual([]);
  });

  it('an empty or cleared field comes back empty: no default put back, no empty option list', () => {
    const again = formAgain(
      submitted(watchForm(), {
        watch_site: { value: { type: 'static_select', selected_option: null } },
        watch_statuses: { value: { type: 'checkboxes', selected_options: [] } },
        watch_content: { value: { type: 'plain_text_input', value: null } },
      }),
      failure,
    );
    if (!again) throw new Error('expected the form again');
    expect(element(again, 'watch_site')).not.toHaveProperty('initial_option');
    expect(element(again, 'watch_statuses')).not.toHaveProperty('initial_options');
    expect(element(again, 'watch_content')).not.toHaveProperty('initial_value');
    // No state at all for the mode: its default initial option is not kept either.
    expect(element(again, 'watch_mode')).not.toHaveProperty('initial_option');
    expect(validateView(again)).toEqual([]);
  });

  it('a value that is not one of the options is dropped, not sent for Slack to refuse', () => {
    const again = formAgain(
      submitted(watchForm(), {
        watch_site: { value: { type: 'static_select', selected_option: { value: 'ZZ99' } } },
        watch_statuses: {
          value: { type: 'checkboxes', selected_options: [{ value: 'NOPE' }, { value: 'DM600' }] },
        },
      }),
      failure,
    );
    if (!again) throw new Error('expected the form again');
    expect(element(again, 'watch_site')).not.toHaveProperty('initial_option');
    expect(
      (element(again, 'watch_statuses').initial_options as Array<{ value: string }>).map((o) => o.value),
    ).toEqual(['DM600']);
  });

  it('failing again shows the latest failure once', () => {
    const values: State = { watch_content: { value: { type: 'plain_text_input', value: 'a-*' } } };
    const first = formAgain(submitted(watchForm(), values), failure);
    if (!first) throw new Error('expected the form again');
    const second = formAgain(submitted(first, values), [section('Second failure.')]);
    if (!second) throw new Error('expected the form again');
    const ids = second.blocks.map((b) => b.block_id ?? '').filter((id) => id.startsWith(FAILURE_BLOCK));
    expect(ids).toEqual([`${FAILURE_BLOCK}_0`]);
    expect(JSON.stringify(second.blocks)).toContain('Second failure.');
    expect(JSON.stringify(second.blocks)).not.toContain('It failed');
    expect(element(second, 'watch_content').initial_value).toBe('a-*');
  });

  it('no form to give back: a view without inputs, or one with no room for the failure', () => {
    expect(formAgain(submitted(modal('x', 'Done', [section('Saved.')]), {}), failure)).toBeUndefined();
    const full = modal(
      'big',
      'Big',
      Array.from({ length: LIMITS.viewBlocks - 1 }, (_, i) => textInput(`f${i}`, `Field ${i}`)),
    );
    expect(formAgain(submitted(full, {}), failure)).toBeUndefined();
  });
});
