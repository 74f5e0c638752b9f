import type { Database } from '../store/database.js';
import { Accounts } from './accounts.js';
import { ConsoleSessions } from './console-sessions.js';
import { ServiceKeys } from './service-keys.js';
import { Services } from './services.js';
import { SignInThrottle } from './sign-in-throttle.js';

/** The account domain over one database: what the server, the CLI and the tests all build alike. */
export interface AccountDomain {
  readonly accounts: Accounts;
  readonly services: Services;
  readonly keys: ServiceKeys;
  readonly sessions: ConsoleSessions;
  readonly throttle: SignInThrottle;
}

/** `modelNames`: the models a new service may name (empty: not checked, e.g. in the CLI, which loads none). */
export function accountDomain(db: Database, secret: string, modelNames: readonly string[] = []): AccountDomain {
  const keys = new ServiceKeys(db, secret);
  return {
    accounts: new Accounts(db),
    services: new Services(db, keys, modelNames),
    keys,
    sessions: new ConsoleSessions(db),
    throttle: new SignInThrottle(db),
  };
}
