import type { Migration } from 'kysely';
import { accountsServicesKeys } from './0001-accounts-services-keys.js';
import { apiKeyCiphertext } from './0002-api-key-ciphertext.js';
import { consoleSessions } from './0003-console-sessions.js';
import { usageCounters } from './0004-usage-counters.js';
import { streamTokens } from './0005-stream-tokens.js';
import { serviceLimitsAndSignUp } from './0006-service-limits-and-sign-up.js';
import { keylessAddressRanges } from './0007-keyless-address-ranges.js';
import { accountDisabled } from './0008-account-disabled.js';
import { deepStackPredictionCap } from './0010-deepstack-prediction-cap.js';
import { signInFailureEmail } from './0012-sign-in-failure-email.js';
import { memoryVersions } from './0017-memory-versions.js';

/** The store's own migrations (accounts, services, keys, usage, …), keyed so that they sort in the order they must run; a feature's live in its slice. */
export const STORE_MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001-accounts-services-keys': accountsServicesKeys,
  '0002-api-key-ciphertext': apiKeyCiphertext,
  '0003-console-sessions': consoleSessions,
  '0004-usage-counters': usageCounters,
  '0005-stream-tokens': streamTokens,
  '0006-service-limits-and-sign-up': serviceLimitsAndSignUp,
  '0007-keyless-address-ranges': keylessAddressRanges,
  '0008-account-disabled': accountDisabled,
  '0010-deepstack-prediction-cap': deepStackPredictionCap,
  '0012-sign-in-failure-email': signInFailureEmail,
  '0017-memory-versions': memoryVersions,
};
