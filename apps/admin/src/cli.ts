import type { Environment, OrganizationDirectory } from '@prior-auth/domain';
import {
  API_VERSIONS,
  assertValidNpi,
  bootstrapOrganization,
  isApiVersion,
  issueApiKey,
  ProvisioningError,
  RandomIdGenerator,
  rotateApiKey,
  type ApiVersion,
} from '@prior-auth/platform';
import { Command, InvalidArgumentError, Option } from 'commander';
import { addAuditCommands } from './audit-commands';
import { addCatalogCommands, type CatalogDatabase } from './catalog-commands';
import { addPortalCommands, type PortalDatabase } from './portal-commands';
import { addQueueCommands, type QueueDatabase } from './queue-commands';
import { addReplayCommands, type ReplayDatabase } from './replay-commands';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** All of stdin, for secrets (`--password-stdin`); absent where there is none. */
  readStdin?(): Promise<string>;
}

const environmentOption = (value: string): Environment => {
  if (value !== 'sandbox' && value !== 'production')
    throw new InvalidArgumentError('must be sandbox or production');
  return value;
};

const apiVersionOption = (value: string): ApiVersion => {
  if (!isApiVersion(value)) throw new InvalidArgumentError(`must be one of ${API_VERSIONS.join(', ')}`);
  return value;
};

const DURATION = /^(\d+)(s|m|h|d)?$/;
const DURATION_UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `--overlap`: `0`, or a whole number of seconds, minutes, hours or days (`90s`, `30m`, `24h`, `7d`). */
const durationOption = (value: string): number => {
  const match = DURATION.exec(value.trim());
  if (!match || (match[2] === undefined && match[1] !== '0'))
    throw new InvalidArgumentError('must be 0 or a duration such as 30m, 24h or 7d');
  return Number(match[1]) * (match[2] ? DURATION_UNIT_MS[match[2] as keyof typeof DURATION_UNIT_MS] : 0);
};

const keyState = (key: { revokedAt: Date | null; expiresAt: Date | null }, now = new Date()): string => {
  if (key.revokedAt) return `revoked ${key.revokedAt.toISOString()}`;
  if (key.expiresAt && key.expiresAt <= now) return `expired ${key.expiresAt.toISOString()}`;
  if (key.expiresAt) return `expires ${key.expiresAt.toISOString()}`;
  return 'active';
};

const print = (io: CliIo, json: boolean | undefined, value: unknown, human: string) =>
  io.out(json ? JSON.stringify(value) : human);

/**
 * The admin commands (decision 0024). Secrets are printed once, on stdout; progress and hints go to stderr so
 * `--json` output can be piped.
 */
export function buildCli(
  directory: () => Promise<OrganizationDirectory>,
  io: CliIo,
  catalogDatabase?: () => Promise<CatalogDatabase>,
  portalDatabase?: () => Promise<PortalDatabase>,
  queueDatabase?: () => Promise<QueueDatabase>,
  replayDatabase?: () => Promise<ReplayDatabase>,
): Command {
  const program = new Command('admin')
    .description(
      'Manage organizations, provider NPIs, API keys, the payer route catalog and payer portal access',
    )
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });

  program
    .command('bootstrap')
    .description('create an organization with one provider NPI and one API key per environment')
    .requiredOption('--name <name>', 'organization name')
    .requiredOption('--npi <npi>', 'provider NPI (10 digits, check digit validated)')
    .option('--json', 'print JSON only')
    .action(async (options: { name: string; npi: string; json?: boolean }) => {
      const result = await bootstrapOrganization(await directory(), options);
      print(
        io,
        options.json,
        result,
        [
          `organization ${result.organizationId} created with provider NPI ${result.providerNpi}`,
          `sandbox key:    ${result.apiKeys.sandbox}`,
          `production key: ${result.apiKeys.production}`,
          'Store these keys now: they are not shown again.',
        ].join('\n'),
      );
    });

  const org = program.command('org').description('organizations');
  org
    .command('create')
    .description('create an organization (no NPI, no key)')
    .requiredOption('--name <name>', 'organization name')
    .option('--json', 'print JSON only')
    .action(async (options: { name: string; json?: boolean }) => {
      const name = options.name.trim();
      if (!name || name.length > 200)
        throw new ProvisioningError('the organization name must have 1 to 200 characters');
      const created = await (
        await directory()
      ).createOrganization({ id: new RandomIdGenerator().newId('org'), name });
      print(io, options.json, created, `organization ${created.id} (${created.name}) created`);
    });
  org
    .command('list')
    .description('list every organization')
    .option('--json', 'print JSON only')
    .action(async (options: { json?: boolean }) => {
      const list = await (await directory()).listOrganizations();
      print(
        io,
        options.json,
        list,
        list.map((o) => `${o.id}\t${o.name}\t${o.createdAt.toISOString()}`).join('\n') || '(none)',
      );
    });

  const npi = program.command('npi').description('provider NPIs of an organization');
  npi
    .command('add')
    .description('register a provider NPI for an organization (check digit validated)')
    .requiredOption('--org <organizationId>')
    .requiredOption('--npi <npi>')
    .action(async (options: { org: string; npi: string }) => {
      assertValidNpi(options.npi);
      const dir = await directory();
      if (!(await dir.findOrganization(options.org)))
        throw new ProvisioningError(`organization ${options.org} does not exist`);
      await dir.registerProviderNpi(options.org, options.npi);
      io.out(`NPI ${options.npi} registered for ${options.org}`);
    });
  npi
    .command('remove')
    .description('remove a provider NPI from an organization')
    .requiredOption('--org <organizationId>')
    .requiredOption('--npi <npi>')
    .action(async (options: { org: string; npi: string }) => {
      const removed = await (await directory()).removeProviderNpi(options.org, options.npi);
      if (!removed) throw new ProvisioningError(`NPI ${options.npi} is not registered for ${options.org}`);
      io.out(`NPI ${options.npi} removed from ${options.org}`);
    });
  npi
    .command('list')
    .description("list an organization's provider NPIs")
    .requiredOption('--org <organizationId>')
    .option('--json', 'print JSON only')
    .action(async (options: { org: string; json?: boolean }) => {
      const dir = await directory();
      if (!(await dir.findOrganization(options.org)))
        throw new ProvisioningError(`organization ${options.org} does not exist`);
      const list = await dir.listProviderNpis(options.org);
      print(io, options.json, list, list.join('\n') || '(none)');
    });

  const key = program.command('key').description('API keys');
  key
    .command('create')
    .description('issue an API key for one environment (the secret is printed once)')
    .requiredOption('--org <organizationId>')
    .requiredOption('--env <environment>', 'sandbox or production', environmentOption)
    .option(
      '--api-version <version>',
      `pinned API version (${API_VERSIONS.join(' or ')}); default: the current one`,
      apiVersionOption,
    )
    .option('--label <label>', 'what the organization calls the key (shown by key list)')
    .option('--json', 'print JSON only')
    .action(
      async (options: {
        org: string;
        env: Environment;
        apiVersion?: ApiVersion;
        label?: string;
        json?: boolean;
      }) => {
        const issued = await issueApiKey(
          await directory(),
          options.org,
          options.env,
          options.apiVersion ?? null,
          options.label ?? null,
        );
        print(
          io,
          options.json,
          issued,
          `${options.env} key ${issued.id}: ${issued.secret}\nStore it now: it is not shown again.`,
        );
      },
    );
  key
    .command('list')
    .description("list an organization's API keys (never their secrets)")
    .requiredOption('--org <organizationId>')
    .option('--json', 'print JSON only')
    .action(async (options: { org: string; json?: boolean }) => {
      const list = await (await directory()).listApiKeys(options.org);
      print(
        io,
        options.json,
        list,
        list
          .map((k) =>
            [
              k.id,
              k.environment,
              `${k.displayPrefix}…`,
              k.apiVersion ?? 'current',
              keyState(k),
              k.lastUsedAt ? `last used ${k.lastUsedAt.toISOString()}` : 'never used',
              k.label ?? '',
            ]
              .join('\t')
              .trimEnd(),
          )
          .join('\n') || '(none)',
      );
    });
  key
    .command('rotate')
    .description('issue a new secret for a key; the old one keeps working for the overlap, then expires')
    .argument('<keyId>')
    .addOption(
      new Option('--overlap <duration>', 'how long the old secret still works: 0, 30m, 24h, 7d (at most 30d)')
        .argParser(durationOption)
        .default(24 * 3_600_000, '24h'),
    )
    .option('--label <label>', "the new key's label (default: the old key's)")
    .option('--json', 'print JSON only')
    .action(async (keyId: string, options: { overlap: number; label?: string; json?: boolean }) => {
      const rotated = await rotateApiKey(await directory(), keyId, options.overlap, options.label);
      print(
        io,
        options.json,
        { ...rotated, oldKeyExpiresAt: rotated.oldKeyExpiresAt.toISOString() },
        [
          `${rotated.environment} key ${rotated.id}: ${rotated.secret}`,
          `Store it now: it is not shown again. Key ${keyId} stops working at ${rotated.oldKeyExpiresAt.toISOString()}.`,
        ].join('\n'),
      );
    });
  key
    .command('revoke')
    .description('revoke an API key at once')
    .argument('<keyId>')
    .action(async (keyId: string) => {
      if (!(await (await directory()).revokeApiKey(keyId)))
        throw new ProvisioningError(`no active key ${keyId}`);
      io.out(`key ${keyId} revoked`);
    });

  if (catalogDatabase) addCatalogCommands(program, catalogDatabase, io);
  if (catalogDatabase) addAuditCommands(program, catalogDatabase, io);
  if (portalDatabase) addPortalCommands(program, portalDatabase, io);
  if (queueDatabase) addQueueCommands(program, queueDatabase, io);
  if (replayDatabase) addReplayCommands(program, replayDatabase, io);
  return program;
}
