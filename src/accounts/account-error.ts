export type AccountErrorCode =
  | 'invalid_email'
  | 'weak_password'
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
  ) {
    super(message);
  }
}
