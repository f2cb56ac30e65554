import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ServiceError } from '../../../../src/api/errors.js';
import { NotConfiguredError } from '../../../../src/ops/workspace.js';
import { commandsMarkdown } from '../../../../src/slack/kit/commands/help.js';
import { listOption, optional, required, values } from '../../../../src/slack/kit/commands/parse.js';
import { CommandRegistry } from '../../../../src/slack/kit/commands/registry.js';
import { fakeContext, textOf } from '../../../support/fake-context.js';

let reg: CommandRegistry;
let calls: Array<{ path: string; args: unknown }>;

beforeEach(() => {
  reg = new CommandRegistry();
  calls = [];
  reg.add({
    command: '/dwm',
    path: ['jobs'],
    aliases: ['job'],
    args: {
      status: listOption(values.oneOf(['ready', 'error']), {
        hint: 'ready|error',
        description: 'Filter by status.',
      }),
    },
    role: 'member',
    summary: 'List recent jobs',
    examples: ['jobs status:error'],
    async handler(_ctx, args) {
      calls.push({ path: 'jobs', args });
    },
  });
  reg.add({
    command: '/dwm',
    path: ['jobs', 'show'],
    args: { job: required(values.int(1, 1e9), { hint: '<job id>', description: 'The job id.' }) },
    role: 'member',
    summary: 'Show one job',
    async handler(_ctx, args) {
      calls.push({ path: 'jobs show', args });
    },
  });
  reg.add({
    command: '/drm',
    path: ['plan', 'trial'],
    args: { site: optional(z.string(), { hint: '<site id>', description: 'Site.' }) },
    role: 'admin',
    summary: 'Request a trial extension',
    async handler(_ctx, args) {
      calls.push({ path: 'plan trial', args });
    },
  });
  reg.add({
    command: '/dwm',
    path: ['recipient', 'add'],
    args: { name: required(z.string(), { hint: '<name>', description: 'Name.' }) },
    role: 'member',
    summary: 'Register a recipient',
    onMissing: 'modal',
    async openModal(ctx, given) {
      await ctx.openView({
        type: 'modal',
        callback_id: 'add',
        title: { type: 'plain_text', text: 'Add' },
        blocks: [],
      });
      calls.push({ path: 'modal', args: given });
    },
    async handler() {
      calls.push({ path: 'recipient add', args: {} });
    },
  });
});

describe('dispatch', () => {
  it('runs a handler with parsed args and the share flag', async () => {
    const ctx = fakeContext();
    await reg.dispatch(ctx, 'jobs status:ready,error share');
    expect(calls).toEqual([{ path: 'jobs', args: { status: ['ready', 'error'], share: true } }]);
    expect(ctx.share).toBe(true);
  });
  it('longest path wins; aliases work', async () => {
    await reg.dispatch(fakeContext(), 'JOB show 42');
    expect(calls).toEqual([{ path: 'jobs show', args: { job: 42, share: false } }]);
  });
  it('help at every level', async () => {
    const top = fakeContext();
    await reg.dispatch(top, 'help');
    // The list names the bare command; its syntax is in `help <command>`.
    expect(textOf(top.replies[0]!.msg)).toContain('`/dwm jobs show`');
    expect(textOf(top.replies[0]!.msg)).not.toContain('&lt;job id&gt;');
    expect(top.replies[0]!.msg).toMatchSnapshot('top help');

    const empty = fakeContext();
    await reg.dispatch(empty, '');
    expect(empty.replies[0]!.msg).toEqual(top.replies[0]!.msg);

    // An admin sees the admin-only commands in their own section.
    const group = fakeContext({ command: '/drm', role: 'admin' });
    await reg.dispatch(group, 'plan help');
    expect(textOf(group.replies[0]!.msg)).toContain('/drm plan trial');
    expect(textOf(group.replies[0]!.msg)).toContain('*Admins only*');
    // A member is told admins have more, without the list.
    const memberGroup = fakeContext({ command: '/drm', role: 'member' });
    await reg.dispatch(memberGroup, 'plan help');
    expect(textOf(memberGroup.replies[0]!.msg)).not.toContain('/drm plan trial');
    expect(textOf(memberGroup.replies[0]!.msg)).toContain('Admins have 1 more command here');

    const one = fakeContext();
    await reg.dispatch(one, 'help jobs show');
    expect(one.replies[0]!.msg).toMatchSnapshot('entry help');
    expect(textOf(one.replies[0]!.msg)).toContain('The job id.');

    const alt = fakeContext();
    await reg.dispatch(alt, 'jobs show help');
    expect(alt.replies[0]!.msg).toEqual(one.replies[0]!.msg);
    expect(calls).toEqual([]);
  });
  it('did you mean, at the top and under a group', async () => {
    const ctx = fakeContext();
    await reg.dispatch(ctx, 'jbos');
    expect(ctx.replies[0]!.msg.text).toContain('Did you mean /dwm jobs?');
    const sub = fakeContext({ command: '/drm' });
    await reg.dispatch(sub, 'plan trail');
    expect(sub.replies[0]!.msg.text).toContain('/drm plan trial');
    const entrySub = fakeContext();
    await reg.dispatch(entrySub, 'jobs shwo');
    expect(textOf(entrySub.replies[0]!.msg)).toContain('Did you mean /dwm jobs show?');
  });
  it('refuses an admin command to a member, says who to ask, and audits it', async () => {
    const ctx = fakeContext({ command: '/drm', role: 'member', admins: '<@UBOSS> or a workspace admin' });
    await reg.dispatch(ctx, 'plan trial AB12');
    expect(calls).toEqual([]);
    expect(textOf(ctx.replies[0]!.msg)).toContain('Only admins can run /drm plan trial');
    expect(textOf(ctx.replies[0]!.msg)).toContain('<@UBOSS>');
    expect(ctx.audits).toEqual([
      { action: 'command.plan.trial', detail: '/drm plan trial', result: 'refused' },
    ]);
    const admin = fakeContext({ command: '/drm', role: 'admin' });
    await reg.dispatch(admin, 'plan trial AB12');
    expect(calls).toEqual([{ path: 'plan trial', args: { site: 'AB12', share: false } }]);
  });
  it("missing argument: the entry's own modal, else the generic form, else (no trigger id) usage", async () => {
    const ctx = fakeContext();
    await reg.dispatch(ctx, 'recipient add');
    expect(ctx.views).toHaveLength(1);
    expect(calls).toEqual([{ path: 'modal', args: {} }]);
    // The generic "fill in what is missing" form: one input per missing argument, the command's
    // text and response_url in the metadata, nothing run yet.
    const form = fakeContext();
    await reg.dispatch(form, 'jobs show', { responseUrl: 'https://hooks.slack.com/commands/T1/1/x' });
    expect(form.replies).toEqual([]);
    expect(form.views).toHaveLength(1);
    const v = form.views[0]!;
    expect(v.callback_id).toBe('cmd_missing_args');
    expect(v.title.text).toBe('/dwm jobs show');
    expect(JSON.stringify(v.blocks)).toContain('"block_id":"arg_job"');
    expect(JSON.parse(v.private_metadata!)).toEqual({
      w: 'T1',
      c: '/dwm',
      t: 'jobs show',
      m: ['job'],
      ru: 'https://hooks.slack.com/commands/T1/1/x',
    });
    expect(calls).toHaveLength(1);
    // Without a trigger id (no modal possible): the error with the usage.
    const err = fakeContext();
    delete (err as { triggerId?: string }).triggerId;
    await reg.dispatch(err, 'jobs show');
    expect(err.views).toEqual([]);
    expect(textOf(err.replies[0]!.msg)).toContain('Missing &lt;job id&gt;');
    expect(textOf(err.replies[0]!.msg)).toContain('Usage: `/dwm jobs show &lt;job id&gt;`');
  });
  it('parse errors show usage', async () => {
    const ctx = fakeContext();
    await reg.dispatch(ctx, 'jobs status:done');
    const t = textOf(ctx.replies[0]!.msg);
    expect(t).toContain('must be one of ready, error');
    expect(t).toContain('Usage:');
  });
  it('handler errors are rendered (service code, setup hint), ephemeral even when shared', async () => {
    reg.add({
      command: '/dwm',
      path: ['boom'],
      args: {},
      role: 'member',
      summary: 'x',
      async handler() {
        throw new ServiceError('wm.getJob', 'E3001', 'job <!channel> not found');
      },
    });
    reg.add({
      command: '/dwm',
      path: ['nocfg'],
      args: {},
      role: 'member',
      summary: 'x',
      async handler() {
        throw new NotConfiguredError('all');
      },
    });
    const ctx = fakeContext();
    await reg.dispatch(ctx, 'boom share');
    const t = textOf(ctx.replies[0]!.msg);
    expect(t).toContain('`E3001`');
    expect(t).toContain('job &lt;!channel&gt; not found');
    expect(t).toContain('No job has that id.');
    expect(ctx.replies[0]!.share).toBe(false);
    const nc = fakeContext();
    await reg.dispatch(nc, 'nocfg');
    expect(textOf(nc.replies[0]!.msg)).toContain('`/dwm setup`');
  });
  it('unexpected errors show a reference id and no message or stack', async () => {
    reg.add({
      command: '/dwm',
      path: ['crash'],
      args: {},
      role: 'member',
      summary: 'x',
      async handler() {
        throw new Error('secret-ish internal detail');
      },
    });
    const ctx = fakeContext();
    await reg.dispatch(ctx, 'crash');
    const t = textOf(ctx.replies[0]!.msg);
    expect(t).toContain('ref12345');
    expect(t).not.toContain('secret-ish');
    expect(t).not.toContain('at ');
  });
  it('refuses duplicate registrations', () => {
    expect(() =>
      reg.add({
        command: '/dwm',
        path: ['jobs'],
        args: {},
        role: 'member',
        summary: 'x',
        handler: async () => {},
      }),
    ).toThrow(/Duplicate/);
  });
});

describe('commandsMarkdown', () => {
  it('renders the reference', () => {
    expect(commandsMarkdown(reg)).toMatchSnapshot();
  });
});
