/**
 * Failure conditions the emulator answers with, and their `error_code` values. The specs do not
 * list codes; this is the project's agreed set (the API module keeps the same table as its
 * configurable default in src/api/error-codes.ts). Failures are HTTP 200 with this envelope.
 */
export const EMU_ERROR_CODES = {
  invalidParameter: 'E1001',
  siteNotFound: 'E1002',
  tooManyRecipients: 'E2001',
  duplicateRecipient: 'E2002',
  recipientInUse: 'E2003',
  recipientNotFound: 'E2004',
  jobNotFound: 'E3001',
  requestNotFound: 'E4001',
  requestNotPending: 'E4002',
  requestAlreadyPending: 'E4003',
  memberNotFound: 'E5001',
  memberExists: 'E5002',
  certificateInvalid: 'E6001',
  internal: 'E9999',
} as const;
export type EmuCondition = keyof typeof EMU_ERROR_CODES;

export const SUCCESS_CODE = '0000';
export const SUCCESS_MESSAGE = 'Success';

/** A handled failure: HTTP 200 with error_code/error_message. */
export class EmuError extends Error {
  readonly condition: EmuCondition;
  constructor(condition: EmuCondition, message: string) {
    super(message);
    this.condition = condition;
  }
  get code(): string {
    return EMU_ERROR_CODES[this.condition];
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
