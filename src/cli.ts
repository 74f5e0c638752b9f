#!/usr/bin/env node
import { text } from 'node:stream/consumers';
import { Command } from 'commander';
import { AccountError } from './accounts/account-error.js';
import { type AccountDomain, accountDomain } from './accounts/account-domain.js';
import { loadServerSecret } from './accounts/server-secret.js';
import { TASK_TYPES } from './tasks/index.js';
import { ConfigError, loadConfig } from './config.js';
import { packageVersion } from './package-root.js';
import { type Database, openDatabase } from './store/database.js';

/** Opens the configured store (SQLite or PostgreSQL, as the server would), runs `task` against it, closes it; domain errors become a clean exit 1. */
async function withAccounts(task: (domain: AccountDomain) => Promise<void>): Promise<void> {
  let db: Database | undefined;
  try {
    const config = loadConfig();
    db = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
    await task(accountDomain(db, loadServerSecret(config.secret, config.dataDir), { serviceTypes: TASK_TYPES }));
  } catch (error) {
    if (!(error instanceof AccountError || error instanceof ConfigError)) throw error;
    process.stderr.write(`detectd: ${error.message}\n`);
    process.exitCode = 1;
  } finally {
    await db?.destroy();
  }
}

const program = new Command('detectd').description('detectd administration: accounts, services and API keys').version(packageVersion());

const account = program.command('account').description('service accounts');
account
  .command('create')
  .description('create a service account')
  .requiredOption('--email <email>', 'sign-in email')
  .option('--password <password>', 'password (prefer --password-stdin: arguments are visible to other users)')
  .option('--password-stdin', 'read the password from standard input')
  .option('--json', 'print one JSON object')
  .action(async (options: { email: string; password?: string; passwordStdin?: boolean; json?: boolean }) => {
    const password = options.passwordStdin ? (await text(process.stdin)).replace(/\r?\n$/, '') : options.password;
    if (password === undefined) return program.error('give --password or --password-stdin');
    await withAccounts(async ({ accounts }) => {
      const created = await accounts.createAccount(options.email, password);
      process.stdout.write(options.json ? JSON.stringify(created) + '\n' : `account created: ${created.email}\n`);
    });
  });

const service = program.command('service').description('services and their API keys');
service
  .command('create')
  .description('create a service in an account and print its API key')
  .requiredOption('--account <email>', 'owning account')
  .requiredOption('--name <name>', 'service name')
  .option('--type <type>', `service type (${TASK_TYPES.join(', ')})`, TASK_TYPES[0])
  .option('--model <name>', 'model to use (default: the server default)')
  .option('--json', 'print one JSON object, including "api_key"')
  .action(async (options: { account: string; name: string; type: string; model?: string; json?: boolean }) => {
    await withAccounts(async ({ accounts, services }) => {
      const owner = await accounts.findAccount(options.account);
      if (!owner) throw new AccountError('account_not_found', `no account for ${options.account}`);
      const { service: created, apiKey } = await services.create(owner.id, { name: options.name, type: options.type, model: options.model });
      const summary = { id: created.id, name: created.name, type: created.type, model: created.model, account: options.account, api_key: apiKey };
      process.stdout.write(
        options.json
          ? JSON.stringify(summary) + '\n'
          : `service created: ${created.name} (${created.type})\nAPI key: ${apiKey}\nKeep it safe; its owner can also read it on the service overview page of the console.\n`,
      );
    });
  });

await program.parseAsync();
