/**
 * The emulator's small HTTP toolkit on plain node:http: a route table with `:param` templates,
 * body reading with a size cap, JSON replies, and tolerant parameter parsing (query string, JSON
 * body, urlencoded form, multipart form).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RequestContext {
  method: string;
  /** Path inside the mount ("/api/job/AB12"). */
  path: string;
  /** Full path with the mount ("/wm/api/job/AB12"). */
  fullPath: string;
  /** Path plus query as received (for `_links.self.href`). */
  rawUrl: string;
  query: URLSearchParams;
  params: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export type Handler = (ctx: RequestContext) => Promise<Reply> | Reply;

interface Route {
  method: string;
  template: string;
  segments: string[];
  handler: Handler;
}

export interface RouteMatch {
  template: string;
  params: Record<string, string>;
  handler: Handler;
}

export class Router {
  private readonly routes: Route[] = [];

  add(method: string, template: string, handler: Handler): this {
    this.routes.push({ method, template, segments: template.split('/').filter(Boolean), handler });
    return this;
  }

  match(method: string, path: string): RouteMatch | undefined {
    const parts = path.split('/').filter(Boolean);
    for (const r of this.routes) {
      if (r.method !== method || r.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length; i++) {
        const seg = r.segments[i] as string;
        const part = parts[i] as string;
        if (seg.startsWith(':')) {
          try {
            params[seg.slice(1)] = decodeURIComponent(part);
          } catch {
            params[seg.slice(1)] = part;
          }
        } else if (seg !== part) {
          ok = false;
          break;
        }
      }
      if (ok) return { template: r.template, params, handler: r.handler };
    }
    return undefined;
  }
}

export const MAX_BODY_BYTES = 10 * 1024 * 1024;

export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json;charset=UTF-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  headers?: Record<string, string>,
): void {
  res.writeHead(status, {
    'content-type': 'text/plain;charset=UTF-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** An uploaded file of a multipart form (contents kept only as a size: never logged). */
export interface FormFile {
  filename: string;
  size: number;
}

/**
 * Parameters of a Service API call, merged from the query string and the body. The spec does not
 * say where POST/PUT parameters go, so every placement is accepted; a body value overrides a
 * query value of the same name.
 */
export class Params {
  private readonly values = new Map<string, string[]>();
  private readonly files = new Map<string, FormFile>();
  /** The body could not be parsed as its declared content type. */
  bodyError: string | undefined;

  set(name: string, value: string): void {
    this.values.set(name, [value]);
  }
  append(name: string, value: string): void {
    const list = this.values.get(name);
    if (list) list.push(value);
    else this.values.set(name, [value]);
  }
  setFile(name: string, file: FormFile): void {
    this.files.set(name, file);
  }
  /** First value; undefined when absent. */
  get(name: string): string | undefined {
    return this.values.get(name)?.[0];
  }
  all(name: string): string[] {
    return this.values.get(name) ?? [];
  }
  has(name: string): boolean {
    return this.values.has(name);
  }
  names(): string[] {
    return [...this.values.keys()];
  }
  file(name: string): FormFile | undefined {
    return this.files.get(name);
  }
  hasFile(name: string): boolean {
    return this.files.has(name);
  }
}

function scalar(v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/**
 * Where a POST/PUT's parameters are read from (emulator behaviour `writeParamsIn`): only the query
 * string ('query': JSON and urlencoded bodies ignored), only a JSON body ('json') or only an
 * urlencoded form body ('form'); the query string is ignored by the last two. A multipart form
 * (the certificate upload) is read in every mode, since files cannot travel in a query string; in
 * 'json' and 'form' its api_code must be in the form too. Undefined: every placement is read.
 */
export type ParamSource = 'query' | 'json' | 'form';

export async function parseParams(ctx: RequestContext, only?: ParamSource): Promise<Params> {
  const p = new Params();
  if (only === undefined || only === 'query') for (const [k, v] of ctx.query) p.append(k, v);
  if (ctx.body.length === 0) return p;
  const type = String(ctx.headers['content-type'] ?? '').toLowerCase();
  const multipart = type.includes('multipart/form-data');
  const urlencoded = type.includes('application/x-www-form-urlencoded');
  if (!multipart && only === 'query') return p;
  if (!multipart && only === 'json' && urlencoded) return p;
  if (!multipart && only === 'form' && !urlencoded) return p;
  const fromBody = new Params();
  try {
    if (multipart) {
      const req = new Request('http://127.0.0.1/', {
        method: 'POST',
        headers: { 'content-type': String(ctx.headers['content-type']) },
        body: ctx.body,
      });
      const form = await req.formData();
      for (const [k, v] of form) {
        if (typeof v === 'string') fromBody.append(k, v);
        else p.setFile(k, { filename: v.name, size: v.size });
      }
    } else if (urlencoded) {
      for (const [k, v] of new URLSearchParams(ctx.body.toString('utf8'))) fromBody.append(k, v);
    } else {
      // JSON by declaration or by default (a body without a content type is read as JSON).
      const parsed: unknown = JSON.parse(ctx.body.toString('utf8'));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        for (const [k, v] of Object.entries(parsed)) {
          if (Array.isArray(v)) {
            for (const item of v) {
              const s = scalar(item);
              if (s !== undefined) fromBody.append(k, s);
            }
          } else {
            const s = scalar(v);
            if (s !== undefined) fromBody.append(k, s);
          }
        }
      } else {
        p.bodyError = 'the JSON body is not an object';
      }
    }
  } catch {
    p.bodyError = 'the body could not be parsed as its content type';
  }
  // Body values override query values of the same name.
  for (const name of fromBody.names()) {
    const values = fromBody.all(name);
    p.set(name, values[0] as string);
    for (const v of values.slice(1)) p.append(name, v);
  }
  return p;
}
