import { SignJWT } from 'jose';
import { type EmulatorHandle, type EmulatorOptions, startEmulator } from '../../dev/emulator/index.js';

export const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

export interface TestEmu {
  emu: EmulatorHandle;
  clock: { t: number };
}

export async function start(opts: EmulatorOptions = {}): Promise<TestEmu> {
  const clock = { t: T0 };
  const emu = await startEmulator({ now: () => clock.t, ...opts });
  return { emu, clock };
}

export function basic(accountId: string, accessKey: string): string {
  return `Basic ${Buffer.from(`${accountId}:${accessKey}`).toString('base64')}`;
}

export async function wmToken(emu: EmulatorHandle, siteId = 'DEMO'): Promise<string> {
  const r = await fetch(`${emu.wmBaseUrl}/api/token/${siteId}`, {
    headers: { authorization: basic(emu.demo.watermarking.accountId, emu.demo.watermarking.accessKey) },
  });
  const body = (await r.json()) as { error_code: string; data: { token: string } };
  if (body.error_code !== '0000') throw new Error(`token: ${JSON.stringify(body)}`);
  return body.data.token;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies.
export type Json = any;

export async function wm(
  emu: EmulatorHandle,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const r = await fetch(`${emu.wmBaseUrl}${path}`, {
    method,
    headers: { authorization: token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

export interface JwtParts {
  accountId?: string;
  accountSeq?: string;
  secret?: string;
  sub?: string;
  aud?: string;
  iss?: string;
  /** exp, seconds since epoch */
  exp?: number;
}

export async function svcJwt(emu: EmulatorHandle, parts: JwtParts = {}): Promise<string> {
  const s = emu.demo.service;
  let b = new SignJWT({
    account_id: parts.accountId ?? s.accountId,
    account_seq: parts.accountSeq ?? s.accountSeq,
  })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(parts.sub ?? 'ServiceAPI')
    .setAudience(parts.aud ?? 'AUDIENCE')
    .setIssuer(parts.iss ?? 'Service');
  if (parts.exp !== undefined) b = b.setExpirationTime(parts.exp);
  return b.sign(new TextEncoder().encode(parts.secret ?? s.secretKey));
}

export async function svc(
  emu: EmulatorHandle,
  method: string,
  path: string,
  opts: {
    jwt?: string;
    query?: Record<string, string | number>;
    json?: unknown;
    form?: FormData;
    headers?: Record<string, string>;
  } = {},
): Promise<{ status: number; body: Json }> {
  const jwt = opts.jwt ?? (await svcJwt(emu));
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(opts.query ?? {})) qs.append(k, String(v));
  const url = `${emu.serviceBaseUrl}/api/v2${path}${qs.size > 0 ? `?${qs}` : ''}`;
  const headers: Record<string, string> = { authorization: `Bearer ${jwt}`, ...opts.headers };
  let body: string | FormData | undefined;
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.json);
  } else if (opts.form) {
    body = opts.form;
  }
  const r = await fetch(url, { method, headers, body });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}
