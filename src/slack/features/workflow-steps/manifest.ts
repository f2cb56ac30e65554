/**
 * The `functions` section of manifest.yml: the steps as Workflow Builder shows them (titles,
 * descriptions, typed inputs and outputs). manifest.yml carries it as JSON-style (flow) YAML, which
 * is plain YAML 1.2, so a test can check the file against this object without a YAML library.
 * Regenerate the section after a change:
 *   npx tsx -e "import('./src/slack/features/workflow-steps/manifest.js').then((m) => console.log(m.manifestSection()))"
 */
import { STEP_IDS } from './ids.js';

export interface ManifestParam {
  type: string;
  title: string;
  description: string;
  hint?: string;
  default?: unknown;
  /** A string parameter's allowed values: Workflow Builder offers a dropdown instead of a text box. */
  enum?: string[];
  /** Labels of the `enum` values in that dropdown. */
  choices?: Array<{ value: string; title: string; description?: string }>;
}

export interface ManifestFunction {
  title: string;
  description: string;
  input_parameters: { properties: Record<string, ManifestParam>; required: string[] };
  output_parameters: { properties: Record<string, ManifestParam>; required: string[] };
}

const site: ManifestParam = {
  type: 'string',
  title: 'Site',
  description: 'The 4-character site id, e.g. DEMO. Leave empty for the workspace default site.',
  hint: 'Empty = the default site',
};
const requestedBy: ManifestParam = {
  type: 'slack#/types/user_id',
  title: 'Requested by',
  description: 'The person the step runs for: named in the audit log and sent the report.',
};
const jobId: ManifestParam = {
  type: 'string',
  title: 'Job id',
  description: 'The watermarking job number shown by /dwm jobs, e.g. 4812.',
};

const jobOutputs: Record<string, ManifestParam> = {
  job_id: { type: 'string', title: 'Job id', description: 'The job number.' },
  status: {
    type: 'string',
    title: 'Status',
    description: 'READY, PREPROCESSING, COMPLETED or ERROR.',
  },
  content_id: { type: 'string', title: 'Content id', description: 'The content the job watermarks.' },
  complete_count: {
    type: 'integer',
    title: 'Recipients complete',
    description: 'How many recipients got their watermarked copy.',
  },
  failed_count: { type: 'integer', title: 'Recipients failed', description: 'How many recipients failed.' },
  failed_recipients: {
    type: 'string',
    title: 'Failed recipients',
    description: 'The names of the failed recipients, one per line (empty when none failed).',
  },
  tasks_shown: {
    type: 'string',
    title: 'Tasks shown',
    description:
      'Empty, or "N of M tasks shown" when the service listed fewer tasks than it counts: the counts and names cover those N.',
  },
};
const jobRequired = Object.keys(jobOutputs);

export const STEP_MANIFEST: Record<string, ManifestFunction> = {
  [STEP_IDS.register]: {
    title: 'Register watermark recipients',
    description:
      'Registers a list of recipients on a site, skipping names already registered or repeated in the list. Finishes when the whole list is done.',
    input_parameters: {
      properties: {
        site,
        recipients: {
          type: 'string',
          title: 'Recipients',
          description:
            'One recipient per line, optionally name,description (the same format as /dwm register).',
        },
        requested_by: requestedBy,
      },
      required: ['recipients', 'requested_by'],
    },
    output_parameters: {
      properties: {
        registered_count: {
          type: 'integer',
          title: 'Registered',
          description: 'How many names were registered.',
        },
        skipped_count: {
          type: 'integer',
          title: 'Skipped',
          description: 'Names already registered, repeated in the list, or not valid.',
        },
        failed_count: {
          type: 'integer',
          title: 'Failed',
          description: 'Names the service did not register.',
        },
        failed_names: {
          type: 'string',
          title: 'Failed names',
          description: 'The names that failed, one per line (empty when none failed).',
        },
        report_link: {
          type: 'string',
          title: 'Report link',
          description: 'Link to the full report in the requester’s messages from the bot.',
        },
      },
      required: ['registered_count', 'skipped_count', 'failed_count', 'failed_names', 'report_link'],
    },
  },
  [STEP_IDS.jobStatus]: {
    title: 'Get a watermarking job’s status',
    description: 'Reads a job’s status and how many recipients are complete or failed.',
    input_parameters: {
      properties: {
        job_id: jobId,
        site,
        requested_by: { ...requestedBy, description: 'Who asked (audit log).' },
      },
      required: ['job_id'],
    },
    output_parameters: { properties: jobOutputs, required: jobRequired },
  },
  [STEP_IDS.waitForJob]: {
    title: 'Wait for a watermarking job to finish',
    description:
      'Pauses the workflow until the job is COMPLETED or ERROR, then gives its status. Stops with an error if it takes longer than the timeout.',
    input_parameters: {
      properties: {
        job_id: jobId,
        site,
        timeout_hours: {
          type: 'number',
          title: 'Timeout (hours)',
          description: 'How long to wait at most, in hours (default 24, at most 720).',
          default: 24,
        },
        requested_by: { ...requestedBy, description: 'Who asked (audit log).' },
      },
      required: ['job_id'],
    },
    output_parameters: { properties: jobOutputs, required: jobRequired },
  },
  [STEP_IDS.trial]: {
    title: 'Request a trial extension',
    description: 'Asks the service to extend the trial of a site’s DRM or forensic watermarking product.',
    input_parameters: {
      properties: {
        site,
        // A dropdown (Slack's string type: `enum` + `choices`); the step still validates the
        // value (a workflow variable can carry any text), as /drm plan trial does.
        service: {
          type: 'string',
          title: 'Service',
          description: 'DRM, or FWM for forensic watermarking.',
          enum: ['DRM', 'FWM'],
          choices: [
            { value: 'DRM', title: 'DRM', description: 'The DRM product.' },
            {
              value: 'FWM',
              title: 'Forensic watermarking (FWM)',
              description: 'The forensic watermarking product.',
            },
          ],
        },
        message: {
          type: 'string',
          title: 'Message',
          description: 'Why the extension is needed (at most 500 characters).',
        },
        requested_by: requestedBy,
      },
      required: ['service', 'requested_by'],
    },
    output_parameters: {
      properties: {
        request_id: { type: 'string', title: 'Request id', description: 'The id of the new request.' },
        status: { type: 'string', title: 'Status', description: 'The request’s status, e.g. Pending.' },
      },
      required: ['request_id', 'status'],
    },
  },
};

/** The text appended to manifest.yml. */
export function manifestSection(): string {
  const body = JSON.stringify(STEP_MANIFEST, null, 2)
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
  return `# Workflow Builder steps (docs/workflow-builder.md). JSON-style YAML, generated from\n# src/slack/features/workflow-steps/manifest.ts (a test keeps them equal).\nfunctions:\n${body}\n`;
}
