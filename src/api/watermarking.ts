/**
 * Watermarking API client (spec endpoints 4.1 to 4.8): `createWatermarkingClient` wires one set
 * of credentials to the endpoint groups of src/api/watermarking/ (call.ts: token, request,
 * envelope and the shared page pieces; jobs.ts: jobs and their tasks; recipients.ts: recipients).
 * Inputs are validated before sending (ValidationError), responses are checked with zod
 * (ProtocolError) and mapped to the camelCase domain types of types.ts, times turned into
 * instants using the envelope's time_zone.
 */

import { runCall } from './http.js';
import type { WatermarkingClient, WatermarkingCredentials } from './types.js';
import { assertValid, checkSiteId } from './validate.js';
import { type WatermarkingClientDeps, wmCall } from './watermarking/call.js';
import { jobEndpoints } from './watermarking/jobs.js';
import { recipientEndpoints } from './watermarking/recipients.js';

export type { WatermarkingClientDeps } from './watermarking/call.js';
/** What a failed task is: read by the ops layer too (src/ops/jobs.ts). */
export { taskFailed } from './watermarking/jobs.js';

export function createWatermarkingClient(
  creds: WatermarkingCredentials,
  deps: WatermarkingClientDeps,
): WatermarkingClient {
  const call = wmCall(creds, deps);
  return {
    async verify(siteId) {
      assertValid('wm.token', [['site id', checkSiteId(siteId)]]);
      await runCall('wm.token', () => deps.tokens.header(creds, siteId));
    },
    ...jobEndpoints(call),
    ...recipientEndpoints(call),
  };
}
