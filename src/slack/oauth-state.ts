/**
 * The OAuth `state` parameter, single-use on the server. Bolt's default state store signs the
 * state and checks the browser cookie, but a state (with its cookie) can be replayed with another
 * code until it expires. Here the state is signed the same way (HMAC-SHA256 with SLACK_STATE_SECRET,
 * 10 minutes), and verifying it claims it once in the store (a lease for its lifetime, shared by
 * replicas): a second callback with the same state is refused. Bolt still checks the cookie.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { InstallURLOptions, StateStore } from '@slack/bolt';
import { z } from 'zod';
import type { ReplayClaims } from './http-gate.js';

export const STATE_LIFETIME_MS = 10 * 60_000;

const Payload = z.object({
  iat: z.number(),
  nonce: z.string(),
  opts: z.record(z.string(), z.unknown()),
});

export class OAuthStateError extends Error {
  constructor(reason: string) {
    super(`The install link is not valid any more (${reason}). Start the installation again.`);
    this.name = 'OAuthStateError';
  }
}

function sign(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('base64url');
}

export function createSingleUseStateStore(secret: string, claims: ReplayClaims): StateStore {
  return {
    async generateStateParam(installOptions: InstallURLOptions, now: Date): Promise<string> {
      const body = Buffer.from(
        JSON.stringify({
          iat: now.getTime(),
          nonce: randomBytes(16).toString('base64url'),
          opts: installOptions,
        }),
      ).toString('base64url');
      return `${body}.${sign(secret, body)}`;
    },
    async verifyStateParam(now: Date, state: string): Promise<InstallURLOptions> {
      const [body, mac] = state.split('.');
      if (!body || !mac) throw new OAuthStateError('malformed state');
      const expected = Buffer.from(sign(secret, body));
      const given = Buffer.from(mac);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
        throw new OAuthStateError('bad signature');
      }
      let payload: z.infer<typeof Payload>;
      try {
        payload = Payload.parse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
      } catch {
        throw new OAuthStateError('malformed state');
      }
      const age = now.getTime() - payload.iat;
      if (age < -60_000 || age > STATE_LIFETIME_MS) throw new OAuthStateError('expired');
      const key = `oauth-state-${createHash('sha256').update(state).digest('hex').slice(0, 40)}`;
      const first = await claims.acquire(
        key,
        `used-${randomBytes(6).toString('hex')}`,
        STATE_LIFETIME_MS + 60_000,
      );
      if (!first) throw new OAuthStateError('already used');
      return payload.opts as unknown as InstallURLOptions;
    },
  };
}
