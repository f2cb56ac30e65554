/**
 * Feature entry point: watermarking (`/dwm jobs`, `job`, `recipients`, `recipient`, `register`).
 * Command modules are imported for their `registry.add` side effect; buttons and modals are
 * registered in `register`. `resumePendingRegistrations(deps)` is for main.ts to call once at
 * start: it resumes registrations a previous process left unfinished.
 */
import type { App } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';
import '../commands/wm-jobs.js';
import '../commands/wm-recipients.js';
import '../commands/wm-register.js';
import { register as jobActions } from '../actions/wm-jobs.js';
import { register as recipientActions } from '../actions/wm-recipients.js';
import { register as registerActions } from '../actions/wm-register.js';
import { register as resumeAction } from '../actions/wm-register-resume.js';
import { register as recipientEditView } from '../views/wm-recipient-edit.js';
import { register as registerViews } from '../views/wm-register.js';

export { type ResumeSummary, resumePendingRegistrations } from '../actions/wm-register-run.js';

export function register(app: App, deps: AppDeps): void {
  jobActions(app, deps);
  recipientActions(app, deps);
  registerActions(app, deps);
  resumeAction(app, deps);
  recipientEditView(app, deps);
  registerViews(app, deps);
}
