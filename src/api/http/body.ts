/**
 * How an answer's body is read: decompressed as it is read (gzip, deflate, br; another
 * Content-Encoding is refused, never read as text), counted against the size cap in DECOMPRESSED
 * bytes (a small bomb cannot fill the memory; reading stops at the cap), and a leading byte order
 * mark dropped (JSON.parse refuses it).
 */
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { TransportError } from '../errors.js';

/** The answer is larger than the cap (by Content-Length, or counted while reading). */
export class BodyTooLarge extends Error {}

/** A Content-Encoding this client cannot decode (refused, never read as text). */
class UnknownEncoding extends Error {
  readonly code = 'UNSUPPORTED_CONTENT_ENCODING';
}

/**
 * The body as plain bytes: gzip, x-gzip, deflate and br decompressed; identity (or none) as is.
 * `deflate` is the zlib format (RFC 9110); a raw deflate stream fails as a corrupt answer.
 */
function decoded(body: Readable, encoding: string | string[] | undefined): Readable {
  const e = (Array.isArray(encoding) ? encoding.join(',') : (encoding ?? '')).trim().toLowerCase();
  if (e === '' || e === 'identity') return body;
  const z =
    e === 'gzip' || e === 'x-gzip'
      ? createGunzip()
      : e === 'deflate'
        ? createInflate()
        : e === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!z) {
    body.destroy();
    throw new UnknownEncoding();
  }
  body.on('error', (err) => z.destroy(err));
  return body.pipe(z);
}

/**
 * Read the body up to `maxBytes` (of decompressed bytes when `encoding` is gzip, deflate or br);
 * throws BodyTooLarge beyond it (and stops reading). A leading BOM is dropped.
 */
export async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(err?: Error): void },
  encoding: string | string[] | undefined,
  maxBytes: number,
): Promise<string> {
  const source = decoded(body as unknown as Readable, encoding);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) throw new BodyTooLarge();
      chunks.push(chunk as Buffer);
    }
  } catch (e) {
    if (source !== (body as unknown)) source.destroy();
    body.destroy();
    throw e;
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The failure of an attempt whose answer is larger than the cap: it was not read. */
export function tooLargeFailure(
  endpoint: string,
  maxBytes: number,
  attempt: number,
  method: string,
): TransportError {
  return new TransportError(
    endpoint,
    `${endpoint}: the service's answer is larger than the ${formatBytes(maxBytes)} limit (UPSTREAM_MAX_RESPONSE_BYTES); it was not read.`,
    undefined,
    attempt,
    undefined,
    method !== 'GET',
  );
}

/** A byte count in words ("10 MB", "512 KB"). */
function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}
