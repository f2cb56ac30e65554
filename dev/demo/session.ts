/**
 * The demo session: a realistic sequence of what people do in Slack, each step checked. A step
 * sends signed requests to the real bot (through the Slack stand-in), waits for what the bot must
 * produce, and throws a DemoStepError naming what is missing otherwise.
 */

import type { FakeCall } from '../fakeslack/index.js';
import type { DemoStack } from './stack.js';
import { type DemoState, type DemoStep, DemoStepError } from './step.js';
import { WORKFLOW_STEP } from './workflow.js';

export { type DemoState, type DemoStep, DemoStepError };

const json = (c: FakeCall) => JSON.stringify(c.args);

function expectText(c: FakeCall, ...needles: string[]): void {
  const t = json(c);
  for (const n of needles) {
    if (!t.includes(n)) throw new DemoStepError(`expected ${c.method} to contain "${n}"`);
  }
}

async function waitFor(s: DemoStack, what: string, pred: (c: FakeCall) => boolean, ms = 15_000) {
  try {
    return await s.fake.waitFor(pred, ms);
  } catch (e) {
    throw new DemoStepError(`${what}: ${(e as Error).message}`);
  }
}

/**
 * Submit a modal (the user's last one, or the view with that id) as Slack does, and close it on the
 * fake Slack: a later lastView() then finds the view the bot opens or pushes next.
 */
async function submitView(
  s: DemoStack,
  o: { user: string; viewId?: string; values?: Record<string, unknown> },
) {
  const view = o.viewId ? s.fake.view(o.viewId) : s.fake.lastView(o.user, 'modal');
  if (!view) throw new DemoStepError(`no modal is open for ${o.user}`);
  s.fake.closeView(view.id);
  return s.viewSubmission({ user: o.user, view, ...(o.values ? { values: o.values } : {}) });
}

const after = (seq: number) => (c: FakeCall) => c.seq > seq && c.ok;

/** Values of a modal's plain text inputs, keyed by block id (Slack's state.values shape). */
function textValues(values: Record<string, string>) {
  return Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k, { value: { type: 'plain_text_input', value: v } }]),
  );
}

/** A distributor list with a few lines that cannot be registered. */
export const RECIPIENT_LIST = [
  'Paramount-EU, EU theatrical',
  'Crunchyroll.JP, anime simulcast',
  'Mubi-UK',
  'bad name with spaces',
  'Netflix-EMEA',
  'Sky-DE, a description that is far longer than the fifty characters allowed',
  'Criterion_US, restorations',
].join('\n');

export const STEPS: DemoStep[] = [
  {
    title: 'Setup',
    about:
      'An admin runs /dwm setup, fills in the service credentials; the bot verifies them live and saves them encrypted.',
    async run(s) {
      const e = s.emulator;
      const seq = s.fake.lastSeq();
      await s.command('setup', { user: s.ws.admin });
      await waitFor(s, 'the setup modal did not open', (c) => after(seq)(c) && c.method === 'views.open');
      const seq2 = s.fake.lastSeq();
      const r = await submitView(s, {
        user: s.ws.admin,
        values: textValues({
          site_ids: 'DEMO, AB12, FILM',
          default_site: 'DEMO',
          wm_account_id: e.demo.watermarking.accountId,
          wm_access_key: e.demo.watermarking.accessKey,
          wm_base_url: e.wmBaseUrl,
          svc_account_id: e.demo.service.accountId,
          svc_account_seq: e.demo.service.accountSeq,
          svc_secret_key: e.demo.service.secretKey,
          svc_base_url: e.serviceBaseUrl,
        }),
      });
      if (r.status !== 200) throw new DemoStepError(`the setup submission was answered ${r.status}`);
      const done = await waitFor(
        s,
        'the setup modal never said "Verified and saved"',
        (c) => after(seq2)(c) && c.method === 'views.update' && json(c).includes('Verified and saved'),
      );
      expectText(done, 'DEMO', 'AB12');
    },
  },
  {
    title: 'App Home',
    about:
      'The admin opens the app: the Home tab shows the connection, failures, jobs in flight, sites and buttons.',
    async run(s) {
      const seq = s.fake.lastSeq();
      await s.event({ type: 'app_home_opened', user: s.ws.admin, channel: 'D0ADMIN01', tab: 'home' });
      const home = await waitFor(
        s,
        'the Home tab was not published',
        (c) => after(seq)(c) && c.method === 'views.publish' && json(c).includes('Channel watches'),
      );
      expectText(home, 'Connected', 'Jobs in flight', 'Demo Streaming', 'Register recipients', 'Setup');
    },
  },
  {
    title: 'Register recipients',
    about:
      'The admin pastes a distributor list with a few invalid lines: a preview first, then the registration runs.',
    async run(s) {
      const seq = s.fake.lastSeq();
      await s.command('register', { user: s.ws.admin });
      const form = await waitFor(
        s,
        'the register form did not open',
        (c) => after(seq)(c) && c.method === 'views.open',
      );
      const viewId = String((form.response as { view?: { id?: string } } | undefined)?.view?.id ?? '');
      const seq2 = s.fake.lastSeq();
      await submitView(s, {
        user: s.ws.admin,
        ...(viewId ? { viewId } : {}),
        values: { recipients_text: { value: { type: 'plain_text_input', value: RECIPIENT_LIST } } },
      });
      const preview = await waitFor(
        s,
        'no registration preview',
        (c) =>
          after(seq2)(c) &&
          c.method === 'views.update' &&
          (c.args.view as { callback_id?: string } | undefined)?.callback_id === 'wm_register_preview',
      );
      expectText(preview, 'New, will be registered', 'Invalid lines', 'bad name with spaces', 'Sky-DE');
      const previewId = String((preview.response as { view?: { id?: string } } | undefined)?.view?.id ?? '');
      const seq3 = s.fake.lastSeq();
      await submitView(s, { user: s.ws.admin, ...(previewId ? { viewId: previewId } : {}) });
      const dm = await waitFor(
        s,
        'the registration never reported that it finished',
        (c) =>
          after(seq3)(c) &&
          (c.method === 'chat.postMessage' || c.method === 'chat.update') &&
          /^[DU]/.test(String(c.args.channel)) &&
          /Registered \d+ recipients? on DEMO\./.test(json(c)),
        30_000,
      );
      expectText(dm, 'Registered 4 recipients on', 'Skipped 3: ');
    },
  },
  {
    title: 'List jobs',
    about: 'A member lists the recent watermarking jobs of the default site.',
    async run(s) {
      const seq = s.fake.lastSeq();
      await s.command('jobs');
      const reply = await waitFor(
        s,
        'no answer to /dwm jobs',
        (c) => after(seq)(c) && c.method === 'response_url',
      );
      expectText(reply, 'DEMO');
      if (!/Job|job/.test(json(reply))) throw new DemoStepError('the jobs reply lists no job');
    },
  },
  {
    title: 'Watch a channel',
    about: 'A member subscribes #releases to completed and failed jobs of site DEMO.',
    async run(s) {
      const seq = s.fake.lastSeq();
      await s.command('watch site:DEMO status:completed,error');
      const reply = await waitFor(
        s,
        'no answer to /dwm watch',
        (c) => after(seq)(c) && c.method === 'response_url',
      );
      expectText(reply, s.ws.channel, 'DEMO');
      // The first poll only learns what exists (no notification for old jobs).
      const first = await s.watch.watcher.pollOnce(s.ws.teamId, 'DEMO');
      if (first.error) throw new DemoStepError(`the first poll failed: ${first.error}`);
    },
  },
  {
    title: 'A job completes and another fails',
    about:
      'Two new jobs run on the service; one completes, one ends in error: the channel is told, failures first, and the Home tab shows the failure.',
    async run(s, state) {
      const e = s.emulator;
      const okJob = e.createJob('DEMO', 'trailer-2026-teaser', [
        { recipient: 'Paramount-EU' },
        { recipient: 'Mubi-UK' },
      ]);
      const badJob = e.createJob('DEMO', 'feature-2026-final', [
        { recipient: 'Crunchyroll.JP' },
        { recipient: 'Mubi-UK' },
      ]);
      state.jobs = { completed: okJob, failed: badJob };
      await s.watch.watcher.pollOnce(s.ws.teamId, 'DEMO');
      const wm = s.deps.api.watermarking({ ...e.demo.watermarking, baseUrl: e.wmBaseUrl });
      const tasks = await wm.getJobTasks('DEMO', badJob);
      const victim = tasks.items.find((t) => t.recipient === 'Crunchyroll.JP') ?? tasks.items[0];
      e.finishJob('DEMO', okJob);
      e.finishJob('DEMO', badJob, { failDwmIds: victim ? [victim.dwmId] : [], cliErrorCode: '3' });
      const seq = s.fake.lastSeq();
      const out = await s.watch.watcher.pollOnce(s.ws.teamId, 'DEMO');
      if (out.error) throw new DemoStepError(`the poll failed: ${out.error}`);
      const inChannel = (id: number) => (c: FakeCall) =>
        after(seq)(c) &&
        (c.method === 'chat.postMessage' || c.method === 'chat.update') &&
        c.args.channel === s.ws.channel &&
        json(c).includes(String(id));
      const done = await waitFor(s, `no notification for completed job ${okJob}`, inChannel(okJob));
      expectText(done, 'completed');
      const failed = await waitFor(s, `no notification for failed job ${badJob}`, inChannel(badJob));
      expectText(failed, 'failed: 1 of 2 recipients');
      // The admin's Home tab follows by itself: the failure of the last 24 hours and the watch.
      const home = await waitFor(
        s,
        'the Home tab did not show the failure',
        (c) =>
          after(seq)(c) &&
          c.method === 'views.publish' &&
          c.args.user_id === s.ws.admin &&
          json(c).includes(String(badJob)),
      );
      expectText(home, String(badJob), `<#${s.ws.channel}>`);
    },
  },
  {
    title: '/dwm debug',
    about: 'The admin checks what the deployment is doing: ids, modes, store, last poll per site, outbox.',
    async run(s) {
      const seq = s.fake.lastSeq();
      await s.command('debug', { user: s.ws.admin });
      const reply = await waitFor(
        s,
        'no answer to /dwm debug',
        (c) => after(seq)(c) && c.method === 'response_url',
      );
      expectText(reply, s.ws.teamId, 'site `DEMO`', 'last poll', 'Pending outbox');
    },
  },
  // One Workflow Builder run (dev/demo/workflow.ts).
  {
    ...WORKFLOW_STEP,
    about:
      'Form → register recipients → wait for the job → post the result, as Workflow Builder custom steps.',
  },
  {
    title: 'No secret leaked',
    about: 'Nothing the bot sent to Slack, and no log line, contains a token, key or signing secret.',
    async run(s) {
      const slack = JSON.stringify(s.fake.calls().map((c) => ({ m: c.method, a: c.args })));
      const logs = s.logs.text();
      for (const secret of s.secrets()) {
        if (slack.includes(secret)) throw new DemoStepError('a secret appeared in a Slack call');
        if (logs.includes(secret)) throw new DemoStepError('a secret appeared in the logs');
      }
    },
  },
];
