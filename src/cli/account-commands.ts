import crypto from 'node:crypto';
import { text } from 'node:stream/consumers';
import type { Command } from 'commander';
import { AccountError } from '../accounts/account-error.js';
import { type AccountSummary, normaliseEmail } from '../accounts/accounts.js';
import { loadConfig } from '../config.js';
import { type OutputOptions, printResult, runCommand, table, type Served, withDomainServing } from './command-context.js';
import { CliFailure, EXIT } from './exit-codes.js';

function accountJson(account: AccountSummary) {
  return { id: account.id, email: account.email, role: account.role, created_at: account.createdAt, disabled: account.disabled, services: account.services };
}

/** A password read from standard input: everything up to a final line break. */
async function passwordFromStdin(): Promise<string> {
  return (await text(process.stdin)).replace(/\r?\n$/, '');
}

/** A new random password for a reset: 24 characters from 144 random bits, URL- and shell-safe. */
function generatedPassword(): string {
  return crypto.randomBytes(18).toString('base64url');
}

/** `detectd account create|list|reset-password|unlock|invite|disable|enable`. */
export function addAccountCommands(program: Command, served: Served): void {
  const withDomain = withDomainServing(served);
  const account = program.command('account').description('service accounts (the people who sign in to the console)');

  account
    .command('create')
    .description('create a service account')
    .requiredOption('--email <email>', 'sign-in email')
    .option('--password <password>', 'password (prefer --password-stdin: arguments are visible to other users)')
    .option('--password-stdin', 'read the password from standard input')
    .option('--json', 'print one JSON object')
    .action((options: OutputOptions & { email: string; password?: string; passwordStdin?: boolean }) =>
      runCommand(options, async () => {
        const password = options.passwordStdin ? await passwordFromStdin() : options.password;
        if (password === undefined) throw new CliFailure('usage', 'give --password or --password-stdin', EXIT.usage);
        const created = await withDomain(loadConfig(), options, ({ accounts }) => accounts.createAccount(options.email, password), { mayCreate: true });
        printResult(options, created, `account created: ${created.email} (${created.role})`);
      }),
    );

  account
    .command('list')
    .description('list every account with its number of services')
    .option('--json', 'print {"accounts": [...]}')
    .action((options: OutputOptions) =>
      runCommand(options, async () => {
        const accounts = await withDomain(loadConfig(), options, (domain) => domain.accounts.list());
        printResult(
          options,
          { accounts: accounts.map(accountJson) },
          accounts.length === 0
            ? 'no accounts'
            : table(
                ['EMAIL', 'ROLE', 'STATUS', 'SERVICES', 'CREATED', 'ID'],
                accounts.map((entry) => [entry.email, entry.role, entry.disabled ? 'disabled' : 'active', String(entry.services), entry.createdAt, entry.id]),
              ),
        );
      }),
    );

  // The new password goes to standard output once (or comes from standard input), never into an argument or a log.
  account
    .command('reset-password <email>')
    .description("set a new password for an account (e.g. an administrator who forgot theirs) and end all its console sessions")
    .option('--password-stdin', 'read the new password from standard input (otherwise one is generated and printed once)')
    .option('--json', 'print one JSON object (with "password" when one was generated)')
    .action((email: string, options: OutputOptions & { passwordStdin?: boolean }) =>
      runCommand(options, async () => {
        const password = options.passwordStdin ? await passwordFromStdin() : generatedPassword();
        const changed = await withDomain(loadConfig(), options, async ({ accounts, throttle }) => {
          const account = await accounts.resetPassword(email, password);
          await throttle.forget(email);
          return account;
        });
        const sessions = 'its console sessions have ended and its sign-in is unlocked';
        if (options.passwordStdin) printResult(options, changed, `password of ${changed.email} reset; ${sessions}`);
        else printResult(options, { ...changed, password }, `password of ${changed.email} reset; ${sessions}. New password (shown only now):\n${password}`);
      }),
    );

  account
    .command('unlock <email>')
    .description('lift the sign-in lockout of an account (after 5 wrong passwords), from every address, at once')
    .option('--json', 'print one JSON object')
    .action((email: string, options: OutputOptions) =>
      runCommand(options, async () => {
        const { account, forgotten } = await withDomain(loadConfig(), options, async ({ accounts, throttle }) => {
          const found = await accounts.findAccount(email);
          if (!found) throw new AccountError('account_not_found', `no account for ${normaliseEmail(email)}`);
          return { account: { id: found.id, email: found.email, role: found.role }, forgotten: await throttle.forget(email) };
        });
        printResult(
          options,
          { ...account, failed_sign_ins_forgotten: forgotten },
          `sign-in of ${account.email} unlocked: ${forgotten} recent failed sign-in${forgotten === 1 ? '' : 's'} forgotten`,
        );
      }),
    );

  account
    .command('invite')
    .description('make an invitation link for one new account, as the administrator does in the console (works once, for 7 days)')
    .option('--json', 'print {"link", "expires_at"}')
    .action((options: OutputOptions) =>
      runCommand(options, async () => {
        const config = loadConfig();
        const { invitation, token } = await withDomain(config, options, async ({ accounts, signUps }) => {
          const admin = (await accounts.list()).find((entry) => entry.role === 'admin');
          if (!admin) throw new AccountError('account_not_found', 'this server has no administrator yet: the first account (detectd account create) becomes it');
          return signUps.invite(admin);
        });
        // Without DETECTD_PUBLIC_URL the CLI cannot know the address people reach the server at: it gives the path.
        const link = `${config.publicUrl ?? ''}/console/sign-up?invitation=${token}`;
        const whole = config.publicUrl ? '' : '\n(add the server\'s address in front, or set DETECTD_PUBLIC_URL to get the whole link)';
        printResult(options, { link, expires_at: invitation.expiresAt }, `invitation link (works once, until ${invitation.expiresAt}; shown only now):\n${link}${whole}`);
      }),
    );

  for (const [name, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    account
      .command(`${name} <email>`)
      .description(
        disabled
          ? 'disable an account: its API keys and console sign-in are refused at once (its services, keys and usage are kept)'
          : 'enable a disabled account again',
      )
      .option('--json', 'print one JSON object')
      .action((email: string, options: OutputOptions) =>
        runCommand(options, async () => {
          const changed = await withDomain(loadConfig(), options, (domain) => domain.accounts.setDisabled(email, disabled));
          printResult(options, { ...changed, disabled }, `account ${changed.email} ${disabled ? 'disabled' : 'enabled'}`);
        }),
      );
  }
}
