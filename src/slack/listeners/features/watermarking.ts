/**
 * Feature entry point: watermarking (`/dwm jobs`, `job`, `recipients`, `recipient`, `register`).
 * Command modules are imported for their `registry.add` side effect; buttons and modals are
 * registered in `register`. `resumePendingRegistrations(deps)` is for main.ts to call once at
 * start: it resumes registrations a previous process left unfinished.
 */
import type { App } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';
import '../../features/jobs/commands.js';
import '../../features/recipients/commands.js';
import '../../features/register/commands.js';
import { register as jobActions } from '../../features/jobs/buttons.js';
import { register as recipientActions } from '../../features/recipients/buttons.js';
import { register as recipientEditView } from '../../features/recipients/edit-modal.js';
import { register as registerActions } from '../../features/register/buttons.js';
import { register as registerViews } from '../../features/register/modals.js';
import { register as resumeAction } from '../../features/register/resume-button.js';

export { type ResumeSummary, resumePendingRegistrations } from '../../features/register/run.js';

export function register(app: App, deps: AppDeps): void {
  jobActions(app, deps);
  recipientActions(app, deps);
  registerActions(app, deps);
  resumeAction(app, deps);
  recipientEditView(app, deps);
  registerViews(app, deps);
}
