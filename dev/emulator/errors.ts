import { DEFAULT_ERROR_CODES } from '../../src/api/error-codes.js';

/**
 * Failure conditions the emulator answers with, and their `error_code` values. The specs do not
 * list codes; this is the project's agreed set (src/api/error-codes.ts, whose default table
 * the emulator answers with). Failures are HTTP 200 with this envelope.
 */
export const EMU_ERROR_CODES = DEFAULT_ERROR_CODES;
export type EmuCondition = keyof typeof EMU_ERROR_CODES;

export const SUCCESS_CODE = '0000';
export const SUCCESS_MESSAGE = 'Success';

/** A handled failure: HTTP 200 with error_code/error_message. */
export class EmuError extends Error {
  readonly condition: EmuCondition;
  /** A code other than the agreed one (a behaviour playing a service with other codes). */
  private readonly codeOverride: string | undefined;
  constructor(condition: EmuCondition, message: string, code?: string) {
    super(message);
    this.condition = condition;
    this.codeOverride = code;
  }
  get code(): string {
    return this.codeOverride ?? EMU_ERROR_CODES[this.condition];
  }
  /** True when the code was given at the throw (then no behaviour replaces it). */
  get overridden(): boolean {
    return this.codeOverride !== undefined;
  }
}

/** An HTTP-level refusal (401, 403): JSON body with the status as error_code. */
export class HttpRefusal extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export function invalid(message: string): EmuError {
  return new EmuError('invalidParameter', message);
}
