#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { addAccountCommands } from './cli/account-commands.js';
import { addBackupCommands } from './cli/backup-commands.js';
import { EXIT } from './cli/exit-codes.js';
import { addModelCommands } from './cli/model-commands.js';
import { addPostgresCommands } from './cli/postgres-commands.js';
import { addServiceCommands } from './cli/service-commands.js';
import { addUnknownFaceCommands } from './cli/unknown-face-commands.js';
import { packageVersion } from './package-root.js';
import { TASK_DESCRIPTIONS } from './tasks/index.js';

/**
 * `detectd`: administration from the command line, against the same database and settings as
 * the server (docs/configuration.md "Command line"). Each command lives in src/cli/; exit statuses in cli/exit-codes.ts.
 */
const program = new Command('detectd')
  .description('detectd administration: accounts, services, API keys, models, backups')
  .version(packageVersion())
  .showHelpAfterError('(add --help for usage)')
  // Commander exits by itself on a usage error; thrown instead, it is given the documented status below.
  .exitOverride();
addAccountCommands(program, TASK_DESCRIPTIONS);
addServiceCommands(program, TASK_DESCRIPTIONS);
addUnknownFaceCommands(program, TASK_DESCRIPTIONS);
addModelCommands(program);
addBackupCommands(program);
addPostgresCommands(program);

try {
  await program.parseAsync();
} catch (error) {
  if (!(error instanceof CommanderError)) throw error;
  process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
}
