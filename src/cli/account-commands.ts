import { text } from 'node:stream/consumers';
import type { Command } from 'commander';
import type { AccountSummary } from '../accounts/accounts.js';
import { loadConfig } from '../config.js';
import { type OutputOptions, printResult, runCommand, table, withDomain } from './command-context.js';
import { CliFailure, EXIT } from './exit-codes.js';

function accountJson(account: AccountSummary) {
  return { id: account.id, email: account.email, created_at: account.createdAt, disabled: account.disabled, services: account.services };
}

/** `detectd account create|list|disable|enable`. */
export function addAccountCommands(program: Command): void {
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
        const password = options.passwordStdin ? (await text(process.stdin)).replace(/\r?\n$/, '') : options.password;
        if (password === undefined) throw new CliFailure('usage', 'give --password or --password-stdin', EXIT.usage);
        const created = await withDomain(loadConfig(), ({ accounts }) => accounts.createAccount(options.email, password));
        printResult(options, created, `account created: ${created.email}`);
      }),
    );

  account
    .command('list')
    .description('list every account with its number of services')
    .option('--json', 'print {"accounts": [...]}')
    .action((options: OutputOptions) =>
      runCommand(options, async () => {
        const accounts = await withDomain(loadConfig(), (domain) => domain.accounts.list());
        printResult(
          options,
          { accounts: accounts.map(accountJson) },
          accounts.length === 0
            ? 'no accounts'
            : table(
                ['EMAIL', 'STATUS', 'SERVICES', 'CREATED', 'ID'],
                accounts.map((entry) => [entry.email, entry.disabled ? 'disabled' : 'active', String(entry.services), entry.createdAt, entry.id]),
              ),
        );
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
          const changed = await withDomain(loadConfig(), (domain) => domain.accounts.setDisabled(email, disabled));
          printResult(options, { ...changed, disabled }, `account ${changed.email} ${disabled ? 'disabled' : 'enabled'}`);
        }),
      );
  }
}
