/** Callback ids of the Workflow Builder steps (the keys of manifest.yml's `functions`). */
export const STEP_IDS = {
  register: 'register_recipients',
  jobStatus: 'job_status',
  waitForJob: 'wait_for_job',
  trial: 'request_trial_extension',
} as const;
