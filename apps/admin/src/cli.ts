import type { Environment, OrganizationDirectory } from '@prior-auth/domain';
import {
  API_VERSIONS,
  assertValidNpi,
  bootstrapOrganization,
  isApiVersion,
  issueApiKey,
  ProvisioningError,
  RandomIdGenerator,
  type ApiVersion,
} from '@prior-auth/platform';
import { Command, InvalidArgumentError } from 'commander';
import { addCatalogCommands, type CatalogDatabase } from './catalog-commands';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
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

const print = (io: CliIo, json: boolean | undefined, value: unknown, human: string) =>
  io.out(json ? JSON.stringify(value) : human);

/**
 * The admin commands (decision 9). Secrets are printed once, on stdout; progress and hints go to stderr so
 * `--json` output can be piped.
 */
export function buildCli(
  directory: () => Promise<OrganizationDirectory>,
  io: CliIo,
  catalogDatabase?: () => Promise<CatalogDatabase>,
): Command {
  const program = new Command('admin')
    .description('Manage organizations, provider NPIs, API keys and the payer route catalog')
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
    .requiredOption('--org <organizationId>')
    .requiredOption('--npi <npi>')
    .action(async (options: { org: string; npi: string }) => {
      const removed = await (await directory()).removeProviderNpi(options.org, options.npi);
      if (!removed) throw new ProvisioningError(`NPI ${options.npi} is not registered for ${options.org}`);
      io.out(`NPI ${options.npi} removed from ${options.org}`);
    });
  npi
    .command('list')
    .requiredOption('--org <organizationId>')
    .option('--json', 'print JSON only')
    .action(async (options: { org: string; json?: boolean }) => {
      const list = await (await directory()).listProviderNpis(options.org);
      print(io, options.json, list, list.join('\n') || '(none)');
    });

  const key = program.command('key').description('API keys');
  key
    .command('create')
    .requiredOption('--org <organizationId>')
    .requiredOption('--env <environment>', 'sandbox or production', environmentOption)
    .option(
      '--api-version <version>',
      `pinned API version (${API_VERSIONS.join(' or ')}); default: the current one`,
      apiVersionOption,
    )
    .option('--json', 'print JSON only')
    .action(async (options: { org: string; env: Environment; apiVersion?: ApiVersion; json?: boolean }) => {
      const issued = await issueApiKey(
        await directory(),
        options.org,
        options.env,
        options.apiVersion ?? null,
      );
      print(
        io,
        options.json,
        issued,
        `${options.env} key ${issued.id}: ${issued.secret}\nStore it now: it is not shown again.`,
      );
    });
  key
    .command('list')
    .requiredOption('--org <organizationId>')
    .option('--json', 'print JSON only')
    .action(async (options: { org: string; json?: boolean }) => {
      const list = await (await directory()).listApiKeys(options.org);
      print(
        io,
        options.json,
        list,
        list
          .map(
            (k) =>
              `${k.id}\t${k.environment}\t${k.displayPrefix}…\t${k.apiVersion ?? 'current'}\t${k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active'}`,
          )
          .join('\n') || '(none)',
      );
    });
  key
    .command('revoke')
    .argument('<keyId>')
    .action(async (keyId: string) => {
      if (!(await (await directory()).revokeApiKey(keyId)))
        throw new ProvisioningError(`no active key ${keyId}`);
      io.out(`key ${keyId} revoked`);
    });

  if (catalogDatabase) addCatalogCommands(program, catalogDatabase, io);
  return program;
}
