import type { Command } from 'commander';
import type { AccountDomain } from '../accounts/account-domain.js';
import { AccountError } from '../accounts/account-error.js';
import type { ActiveKey } from '../accounts/service-keys.js';
import type { Service } from '../core/service.js';
import { loadConfig } from '../config.js';
import { type OutputOptions, printResult, runCommand, type Served, table, withDomainServing } from './command-context.js';
import { lackingOnLocalServer, localServerUrl, servedModels } from './served-models.js';
import { CliFailure, EXIT } from './exit-codes.js';

export interface ServiceOptions extends OutputOptions {
  /** The owner's email: then `<service>` may be the service's name. */
  readonly account?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The account `email` names, or an account_not_found failure. */
async function ownerAccount(domain: AccountDomain, email: string) {
  const owner = await domain.accounts.findAccount(email);
  if (!owner) throw new AccountError('account_not_found', `no account for ${email}`);
  return owner;
}

/** `<service>` as given: its id, or its name when `--account` names the owner. */
export async function findService(domain: AccountDomain, reference: string, accountEmail: string | undefined): Promise<Service> {
  if (accountEmail !== undefined) {
    const owner = await ownerAccount(domain, accountEmail);
    const found = (await domain.services.findByName(owner.id, reference)) ?? (await domain.services.find(owner.id, reference));
    if (!found) throw new AccountError('service_not_found', `account ${owner.email} has no service named "${reference}"`);
    return found;
  }
  const found = await domain.services.findAnywhere(reference);
  if (found) return found;
  throw new AccountError(
    'service_not_found',
    UUID.test(reference) ? `no service has the id ${reference}` : `"${reference}" is not a service id; to name a service by its name, add --account <owner email>`,
  );
}

async function ownerEmails(domain: AccountDomain): Promise<Map<string, string>> {
  return new Map((await domain.accounts.list()).map((account) => [account.id, account.email]));
}

function serviceJson(service: Service, emails: ReadonlyMap<string, string>) {
  return {
    id: service.id,
    account: emails.get(service.accountId) ?? service.accountId,
    name: service.name,
    type: service.type,
    model: service.model,
    disabled: service.disabled,
    created_at: service.createdAt,
    ...limitsJson(service),
  };
}

/** The service's limits and keyless ranges; null: none (no limit; keyless calls off). */
function limitsJson(service: Service) {
  return {
    rate_limit_per_minute: service.rateLimitPerMinute,
    monthly_quota: service.monthlyQuota,
    deepstack_max_predictions: service.deepStackMaxPredictions,
    keyless_address_ranges: service.keylessAddressRanges,
  };
}

const NO_LIMIT = 'none';

/** A limit option as typed: a whole number, or `none` to remove the limit. The range is the domain's rule (Services.setLimits). */
function limitOption(option: string, text: string): number | null {
  if (text === NO_LIMIT) return null;
  if (!/^\d{1,15}$/.test(text)) throw new CliFailure('usage', `${option} must be a whole number, or "${NO_LIMIT}" to remove the limit; got "${text}"`, EXIT.usage);
  return Number(text);
}

/** How a limit reads for a person. */
const limitText = (value: number | null, unit: string) => (value === null ? 'none' : `${value} ${unit}`);

function keylessText(ranges: readonly string[] | null): string {
  return ranges === null ? 'off' : `on, from ${ranges.join(' ')}`;
}

function keyJson(key: ActiveKey) {
  return { id: key.id, created_at: key.createdAt, expires_at: key.expiresAt, hint: key.hint };
}

/**
 * Declares `detectd service <name> <service> [more arguments] [--account <email>] [--json]` with the
 * shared reference options; `more` are the command's arguments after the service (`<userid>`).
 */
export function serviceCommand(parent: Command, name: string, description: string, more = ''): Command {
  return parent
    .command(`${name} <service>${more ? ` ${more}` : ''}`)
    .description(description)
    .option('--account <email>', 'owner of the service: then <service> may be its name instead of its id')
    .option('--json', 'print one JSON object');
}

/**
 * `detectd service create|list|show|rotate-key|revoke-key|limits|keyless|disable|enable|rename|model|delete`:
 * the `service` command, to which the features add their own (Feature.addServiceCommands).
 */
export function addServiceCommands(program: Command, served: Served): Command {
  const { tasks } = served;
  const withDomain = withDomainServing(served);
  const service = program.command('service').description('services and their API keys');

  service
    .command('create')
    .description('create a service in an account and print its API key')
    .requiredOption('--account <email>', 'owning account')
    .requiredOption('--name <name>', 'service name')
    .option('--type <type>', `service type (${tasks.types.join(', ')})`, tasks.types[0])
    .option('--model <name>', 'model that answers it (see `detectd models list`; default: the server default)')
    .option('--json', 'print one JSON object, including "api_key"')
    .action((options: OutputOptions & { account: string; name: string; type: string; model?: string }) =>
      runCommand(options, async () => {
        const config = loadConfig();
        const models = options.model === undefined ? undefined : await servedModels(config, tasks, options);
        await withDomain(
          config,
          options,
          async (domain) => {
            const owner = await ownerAccount(domain, options.account);
            const { service: created, apiKey } = await domain.services.create(owner.id, { name: options.name, type: options.type, model: options.model });
            // A named model was checked above; the server default of a type may be missing (no plate model pulled yet).
            const lacking = options.model === undefined ? await lackingOnLocalServer(config, tasks, created) : undefined;
            const warning = lacking && `the server at ${localServerUrl(config)} answers this service 503 model_unavailable: ${lacking.problem}; fix: ${lacking.fix}`;
            printResult(
              options,
              { ...serviceJson(created, new Map([[owner.id, owner.email]])), api_key: apiKey, ...(warning && { warning }) },
              `service created: ${created.name} (${created.type}, model ${created.model ?? 'the server default'}), id ${created.id}\nAPI key: ${apiKey}\nKeep it safe; its owner can also read it on the service overview page of the console.`,
            );
            if (warning && !options.json) process.stderr.write(`detectd: warning: ${warning}\n`);
          },
          { models },
        );
      }),
    );

  service
    .command('list')
    .description('list services: every account\u2019s, or one account\u2019s')
    .option('--account <email>', 'only this account\u2019s services')
    .option('--json', 'print {"services": [...]}')
    .action((options: ServiceOptions) =>
      runCommand(options, async () => {
        await withDomain(loadConfig(), options, async (domain) => {
          const accountId = options.account === undefined ? undefined : (await ownerAccount(domain, options.account)).id;
          const emails = await ownerEmails(domain);
          const services = (await domain.services.listAll(accountId)).map((entry) => serviceJson(entry, emails));
          printResult(
            options,
            { services },
            services.length === 0
              ? 'no services'
              : table(
                  ['ACCOUNT', 'NAME', 'TYPE', 'MODEL', 'STATUS', 'ID'],
                  services.map((entry) => [entry.account, entry.name, entry.type, entry.model ?? '(default)', entry.disabled ? 'disabled' : 'enabled', entry.id]),
                ),
          );
        });
      }),
    );

  serviceCommand(service, 'show', 'show a service and its working API keys (never the keys themselves)').action((reference: string, options: ServiceOptions) =>
    runCommand(options, async () => {
      await withDomain(loadConfig(), options, async (domain, store) => {
        const found = await findService(domain, reference, options.account);
        // What the features say of a service of theirs (Feature.serviceFacts), after its limits.
        const facts = (await Promise.all(served.serviceFacts.map((read) => read(found, store)))).filter((fact) => fact !== undefined);
        const shown = { ...serviceJson(found, await ownerEmails(domain)), ...Object.fromEntries(facts.flatMap((fact) => Object.entries(fact.json))), keys: (await domain.keys.active(found)).map(keyJson) };
        const keyLines = shown.keys.map((key) => `  ${key.hint ?? '(made before encryption: rotate to show)'}  ${key.id}  ${key.expires_at ? `rotated out, works until ${key.expires_at}` : 'current'}`);
        printResult(
          options,
          shown,
          [
            `service   ${shown.name}`,
            `id        ${shown.id}`,
            `account   ${shown.account}`,
            `type      ${shown.type}`,
            `model     ${shown.model ?? '(server default)'}`,
            `status    ${shown.disabled ? 'disabled' : 'enabled'}`,
            `created   ${shown.created_at}`,
            `rate      ${limitText(shown.rate_limit_per_minute, 'requests per minute')}`,
            `quota     ${limitText(shown.monthly_quota, 'calls per month')}`,
            `deepstack ${limitText(shown.deepstack_max_predictions, 'predictions per answer at most')}`,
            `keyless   ${keylessText(shown.keyless_address_ranges)}`,
            ...facts.flatMap((fact) => fact.lines),
            `keys      ${shown.keys.length === 0 ? 'none working' : `${shown.keys.length} working:`}`,
            ...keyLines,
          ].join('\n'),
        );
      });
    }),
  );

  serviceCommand(service, 'rotate-key', 'issue a new API key and print it; the old one stops at once unless --grace is given')
    .option('--grace <seconds>', 'keep the old key working this many seconds', '0')
    .action((reference: string, options: ServiceOptions & { grace: string }) =>
      runCommand(options, async () => {
        const grace = Number(options.grace);
        if (!Number.isInteger(grace) || grace < 0 || grace > 90 * 24 * 3600) {
          throw new CliFailure('usage', `--grace must be a whole number of seconds from 0 to ${90 * 24 * 3600}, got "${options.grace}"`, EXIT.usage);
        }
        await withDomain(loadConfig(), options, async (domain) => {
          const found = await findService(domain, reference, options.account);
          const apiKey = await domain.keys.rotate(found, grace);
          printResult(
            options,
            { id: found.id, name: found.name, api_key: apiKey, old_key_works_for_seconds: grace },
            `new API key for ${found.name}: ${apiKey}\n${grace > 0 ? `the old key keeps working for ${grace} s` : 'the old key is revoked'}`,
          );
        });
      }),
    );

  serviceCommand(service, 'revoke-key', 'revoke a working API key at once: the current one, or --key <id> (ids: `detectd service show`)')
    .option('--key <id>', 'the key to revoke (default: the current key)')
    .action((reference: string, options: ServiceOptions & { key?: string }) =>
      runCommand(options, async () => {
        await withDomain(loadConfig(), options, async (domain) => {
          const found = await findService(domain, reference, options.account);
          const working = await domain.keys.active(found);
          const target = options.key === undefined ? working.find((key) => key.expiresAt === null) : working.find((key) => key.id === options.key);
          if (!target || !(await domain.keys.revoke(found, target.id))) {
            throw new AccountError('key_not_found', options.key === undefined ? `service ${found.name} has no current key` : `service ${found.name} has no working key with id ${options.key}`);
          }
          printResult(options, { id: found.id, name: found.name, revoked_key: target.id }, `revoked key ${target.hint ?? target.id} of ${found.name}`);
        });
      }),
    );

  for (const [name, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    serviceCommand(service, name, disabled ? 'disable a service: its calls get 403 until enabled again' : 'enable a disabled service').action(
      (reference: string, options: ServiceOptions) =>
        runCommand(options, async () => {
          await withDomain(loadConfig(), options, async (domain) => {
            const found = await findService(domain, reference, options.account);
            await domain.services.setDisabled(found, disabled);
            printResult(options, { id: found.id, name: found.name, disabled }, `service ${found.name} ${disabled ? 'disabled' : 'enabled'}`);
          });
        }),
    );
  }

  serviceCommand(service, 'limits', `set the service's request-rate limit, monthly quota and DeepStack prediction cap ("${NO_LIMIT}" removes one; an option left out keeps its value)`)
    .option('--rate-per-minute <n>', `requests per minute its keys may make, or "${NO_LIMIT}"`)
    .option('--monthly-quota <n>', `calls per calendar month (UTC), or "${NO_LIMIT}"`)
    .option('--deepstack-max-predictions <n>', `at most this many predictions, the most confident, in a DeepStack / CodeProject.AI answer (20 for Frigate), or "${NO_LIMIT}"`)
    .action((reference: string, options: ServiceOptions & { ratePerMinute?: string; monthlyQuota?: string; deepstackMaxPredictions?: string }) =>
      runCommand(options, async () => {
        if (options.ratePerMinute === undefined && options.monthlyQuota === undefined && options.deepstackMaxPredictions === undefined) {
          throw new CliFailure('usage', 'give --rate-per-minute, --monthly-quota, --deepstack-max-predictions or several (a number, or "none" to remove the limit)', EXIT.usage);
        }
        const rate = options.ratePerMinute === undefined ? undefined : limitOption('--rate-per-minute', options.ratePerMinute);
        const quota = options.monthlyQuota === undefined ? undefined : limitOption('--monthly-quota', options.monthlyQuota);
        const cap = options.deepstackMaxPredictions === undefined ? undefined : limitOption('--deepstack-max-predictions', options.deepstackMaxPredictions);
        await withDomain(loadConfig(), options, async (domain) => {
          const found = await findService(domain, reference, options.account);
          const limits = {
            rateLimitPerMinute: rate === undefined ? found.rateLimitPerMinute : rate,
            monthlyQuota: quota === undefined ? found.monthlyQuota : quota,
            deepStackMaxPredictions: cap === undefined ? found.deepStackMaxPredictions : cap,
          };
          await domain.services.setLimits(found, limits);
          const updated = { ...found, ...limits };
          printResult(
            options,
            { id: found.id, name: found.name, ...limitsJson(updated) },
            `limits of ${found.name}: rate ${limitText(limits.rateLimitPerMinute, 'requests per minute')}, quota ${limitText(limits.monthlyQuota, 'calls per month')}, ` +
              `DeepStack answers ${limitText(limits.deepStackMaxPredictions, 'predictions at most')}`,
          );
        });
      }),
    );

  serviceCommand(service, 'keyless', 'accept DeepStack / CodeProject.AI calls without a key from these address ranges (--allow), or from none (--none)')
    .option('--allow <ranges...>', 'address ranges (CIDR, e.g. 192.168.1.20/32 or fd00::/8; a bare address is just that address)')
    .option('--none', 'refuse calls without a key again (the default)')
    .action((reference: string, options: ServiceOptions & { allow?: string[]; none?: boolean }) =>
      runCommand(options, async () => {
        if ((options.allow === undefined) === (options.none === undefined)) {
          throw new CliFailure('usage', 'give either --allow <ranges...> or --none', EXIT.usage);
        }
        await withDomain(loadConfig(), options, async (domain) => {
          const found = await findService(domain, reference, options.account);
          const ranges = await domain.services.setKeylessAddressRanges(found, options.allow === undefined ? null : options.allow.join(' '));
          printResult(options, { id: found.id, name: found.name, keyless_address_ranges: ranges }, `keyless calls to ${found.name}: ${keylessText(ranges)}`);
        });
      }),
    );

  serviceCommand(service, 'rename', 'rename a service, as the console does (its keys, limits and usage stay)', '<name>')
    .action((reference: string, name: string, options: ServiceOptions) =>
      runCommand(options, async () => {
        await withDomain(loadConfig(), options, async (domain) => {
          const found = await findService(domain, reference, options.account);
          const renamed = await domain.services.update(found, { name, model: found.model });
          printResult(options, serviceJson(renamed, await ownerEmails(domain)), `service ${found.name} renamed to ${renamed.name}`);
        });
      }),
    );

  serviceCommand(service, 'model', 'choose the model that answers a service, as the console does: a model name (`detectd models list`), or --default for the server default; calls use it from the next one on', '[model]')
    .option('--default', 'the server default model (DETECTD_DEFAULT_MODEL), whichever it is at the time')
    .action((reference: string, model: string | undefined, options: ServiceOptions & { default?: boolean }) =>
      runCommand(options, async () => {
        if ((model === undefined) === (options.default === undefined)) throw new CliFailure('usage', 'give either a model name or --default', EXIT.usage);
        const config = loadConfig();
        const models = model === undefined ? undefined : await servedModels(config, tasks, options);
        await withDomain(
          config,
          options,
          async (domain) => {
            const found = await findService(domain, reference, options.account);
            const changed = await domain.services.update(found, { name: found.name, model: model ?? null });
            printResult(options, serviceJson(changed, await ownerEmails(domain)), `model of ${changed.name}: ${changed.model ?? 'the server default'}`);
          },
          { models },
        );
      }),
    );

  serviceCommand(service, 'delete', 'delete a service with its keys and usage (asks for --yes)')
    .option('--yes', 'confirm: this cannot be undone')
    .action((reference: string, options: ServiceOptions & { yes?: boolean }) =>
      runCommand(options, async () => {
        if (!options.yes) throw new CliFailure('usage', 'deleting a service removes its keys and usage for good; add --yes to confirm', EXIT.usage);
        await withDomain(loadConfig(), options, async (domain) => {
          const found = await findService(domain, reference, options.account);
          await domain.services.delete(found);
          printResult(options, { id: found.id, name: found.name, deleted: true }, `service ${found.name} deleted`);
        });
      }),
    );
  return service;
}
