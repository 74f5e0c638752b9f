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

export interface AccountDomainOptions {
  /** Service types a service may have: the task table's (tasks/index.ts). */
  readonly serviceTypes: readonly string[];
  /** The models a new service may name (absent: not checked). */
  readonly modelNames?: readonly string[];
}

export function accountDomain(db: Database, secret: string, options: AccountDomainOptions): AccountDomain {
  const keys = new ServiceKeys(db, secret);
  return {
    accounts: new Accounts(db),
    services: new Services(db, keys, options.serviceTypes, options.modelNames ?? []),
    keys,
    sessions: new ConsoleSessions(db),
    throttle: new SignInThrottle(db),
  };
}
