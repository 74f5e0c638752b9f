export type AccountErrorCode =
  | 'invalid_email'
  | 'weak_password'
  | 'wrong_password'
  | 'email_taken'
  | 'account_not_found'
  | 'account_disabled'
  | 'service_not_found'
  | 'key_not_found'
  | 'invalid_service_name'
  | 'service_name_taken'
  | 'unknown_service_type'
  | 'unknown_model'
  | 'invalid_address_range'
  | 'invalid_limit'
  | 'sign_up_closed';

/** A rule of the account domain was broken; `code` says which, the message says it to a person. */
export class AccountError extends Error {
  constructor(
    readonly code: AccountErrorCode,
    message: string,
    /** The input it is about (`name`, `monthlyQuota`, `password`, …), so that a form can show it beside that field. */
    readonly field?: string,
  ) {
    super(message);
  }
}

/** Several inputs broken at once: each error is kept, so a form shows every one beside its field; code and field are the first's, the message says all. */
export class AccountErrors extends AccountError {
  constructor(readonly errors: readonly AccountError[]) {
    super(errors[0].code, errors.map((error) => error.message).join('; '), errors[0].field);
  }
}

/** The codes of every error `error` holds. */
export function codesOf(error: AccountError): AccountErrorCode[] {
  return error instanceof AccountErrors ? error.errors.map((each) => each.code) : [error.code];
}

/** Throws the problems found, if any: one as itself, several together as AccountErrors. */
export function throwProblems(problems: readonly (AccountError | undefined)[]): void {
  const found = problems.filter((problem) => problem !== undefined);
  if (found.length === 1) throw found[0];
  if (found.length > 1) throw new AccountErrors(found);
}
