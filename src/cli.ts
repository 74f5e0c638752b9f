#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import type { Served } from './cli/command-context.js';
import { EXIT } from './cli/exit-codes.js';
import { packageVersion } from './package-root.js';

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

/** The features, and what the CLI serves of them (the service types, its database's schema), described once, as the server builds its own. */
const features = async () => import('./features/index.js');
const served = async (): Promise<Served> => {
  const { DESCRIBED_FEATURES, FEATURES, SCHEMA } = await features();
  return { tasks: DESCRIBED_FEATURES.tasks, schema: SCHEMA, serviceFacts: FEATURES.flatMap((feature) => (feature.serviceFacts ? [feature.serviceFacts] : [])) };
};

/** A group of commands: the words its commands start with, and what adds them to the program. */
interface CommandGroup {
  readonly words: readonly string[];
  add(program: Command): Promise<void>;
}

/** Every group, in the order `detectd --help` lists them. */
const GROUPS: readonly CommandGroup[] = [
  { words: ['account'], add: async (to) => (await import('./cli/account-commands.js')).addAccountCommands(to, await served()) },
  {
    words: ['service'],
    add: async (to) => {
      const serving = await served();
      const service = (await import('./cli/service-commands.js')).addServiceCommands(to, serving);
      for (const feature of (await features()).FEATURES) await feature.addServiceCommands?.(service, serving);
    },
  },
  { words: ['models'], add: async (to) => (await import('./cli/model-commands.js')).addModelCommands(to) },
  { words: ['backup', 'restore'], add: async (to) => (await import('./cli/backup-commands.js')).addBackupCommands(to, (await served()).schema) },
  { words: ['migrate-to-postgres'], add: async (to) => (await import('./cli/postgres-commands.js')).addPostgresCommands(to, (await served()).schema) },
];

// A command loads only its own group's modules: each run is a process of its own, and the modules it
// imports are most of its time. Help, the version and a word no group knows get every group.
const word = process.argv.slice(2).find((argument) => !argument.startsWith('-'));
const named = GROUPS.filter((group) => word !== undefined && group.words.includes(word));
for (const group of named.length > 0 ? named : GROUPS) await group.add(program);

try {
  await program.parseAsync();
} catch (error) {
  if (!(error instanceof CommanderError)) throw error;
  process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
}
