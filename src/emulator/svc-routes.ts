import { Router } from './http.js';
import type { EmulatorState } from './state.js';

export interface SvcRouteOptions {
  cidLicensePath: 'cid-License' | 'cid-drmLicense' | 'both';
  jwt: { subject: string; audience: string; issuer: string };
}

export function svcRouter(_state: EmulatorState, _opts: SvcRouteOptions): Router {
  return new Router();
}
