import { isPageScriptName, PAGE_SCRIPT_NAMES } from '@prior-auth/payer-portal';
import {
  TypeOrmPayerCatalog,
  TypeOrmPortalConnections,
  TypeOrmPortalCredentials,
  type PortalCredentialSummary,
} from '@prior-auth/persistence-postgres';
import { ProvisioningError, type CredentialsCipher } from '@prior-auth/platform';
import { InvalidArgumentError, type Command } from 'commander';
import type { CatalogDatabase as DataSource } from './catalog-commands';
import type { CliIo } from './cli';

/** What the portal commands work on: the database, and the cipher of CREDENTIALS_KEY when a secret is sealed. */
export interface PortalDatabase {
  dataSource: DataSource;
  cipher: () => CredentialsCipher;
}

const baseUrlOption = (value: string): string => {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new InvalidArgumentError('must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new InvalidArgumentError('must be an absolute http(s) URL');
  return url.href.replace(/\/$/, '');
};

const pageScriptOption = (value: string): string => {
  if (!isPageScriptName(value))
    throw new InvalidArgumentError(`must be one of ${PAGE_SCRIPT_NAMES.join(', ')}`);
  return value;
};

/** A TOTP secret is base32 (spaces, as authenticator apps show it, are dropped). */
function totpSecretOf(text: string): string {
  const secret = text.replace(/\s+/g, '').toUpperCase();
  // At least 128 bits, as authenticators (and the one-time code library) require.
  if (!/^[A-Z2-7]{26,}=*$/.test(secret))
    throw new ProvisioningError(
      'the TOTP secret must be base32 (letters A-Z and digits 2-7), at least 26 characters (128 bits)',
    );
  return secret;
}

const summaryLine = (c: PortalCredentialSummary) =>
  `${c.payerId}\t${c.username}\ttotp ${c.totpConfigured ? 'yes' : 'no'}\tupdated ${c.updatedAt.toISOString()}`;

/**
 * `portal-connection` (per payer: base URL + page script) and `portal-credentials` (per organization and
 * payer), decision 0021. Secrets are read from stdin only, so they never appear in a process list or shell
 * history, and are never printed back.
 */
export function addPortalCommands(program: Command, open: () => Promise<PortalDatabase>, io: CliIo): void {
  const payerMustExist = async (dataSource: DataSource, payerId: string) => {
    if ((await new TypeOrmPayerCatalog(dataSource).getPayer(payerId)) === null)
      throw new ProvisioningError(`payer ${payerId} is not in the catalog`);
  };

  const connection = program
    .command('portal-connection')
    .description("payers' portal connections (production payer portals)");
  connection
    .command('set')
    .description("set a payer's portal connection (base URL and page script)")
    .requiredOption('--payer <payerId>')
    .requiredOption('--base-url <url>', "the portal's address", baseUrlOption)
    .requiredOption('--page-script <name>', `one of ${PAGE_SCRIPT_NAMES.join(', ')}`, pageScriptOption)
    .option('--json', 'print JSON only')
    .action(async (options: { payer: string; baseUrl: string; pageScript: string; json?: boolean }) => {
      const { dataSource } = await open();
      await payerMustExist(dataSource, options.payer);
      const saved = await new TypeOrmPortalConnections(dataSource).set({
        payerId: options.payer,
        baseUrl: options.baseUrl,
        pageScript: options.pageScript,
      });
      io.out(
        options.json
          ? JSON.stringify(saved)
          : `portal connection of ${saved.payerId}: ${saved.baseUrl} (${saved.pageScript})`,
      );
    });
  connection
    .command('list')
    .description('list the payer portal connections')
    .option('--json', 'print JSON only')
    .action(async (options: { json?: boolean }) => {
      const list = await new TypeOrmPortalConnections((await open()).dataSource).list();
      io.out(
        options.json
          ? JSON.stringify(list)
          : list
              .map((c) => `${c.payerId}\t${c.baseUrl}\t${c.pageScript}\tupdated ${c.updatedAt.toISOString()}`)
              .join('\n') || '(none)',
      );
    });
  connection
    .command('remove')
    .description("remove a payer's portal connection")
    .requiredOption('--payer <payerId>')
    .action(async (options: { payer: string }) => {
      if (!(await new TypeOrmPortalConnections((await open()).dataSource).remove(options.payer)))
        throw new ProvisioningError(`payer ${options.payer} has no portal connection`);
      io.out(`portal connection of ${options.payer} removed`);
    });

  const credentials = program
    .command('portal-credentials')
    .description("organizations' sign-ins at payer portals (secrets encrypted with CREDENTIALS_KEY)");
  credentials
    .command('set')
    .description("store an organization's sign-in at a payer portal (secrets from stdin)")
    .requiredOption('--org <organizationId>')
    .requiredOption('--payer <payerId>')
    .requiredOption('--username <username>')
    .option('--password-stdin', 'read the password from the first line of stdin (required)')
    .option(
      '--totp-secret-stdin',
      "read the authenticator's TOTP secret (base32) from the next line of stdin",
    )
    .option('--json', 'print JSON only')
    .action(
      async (options: {
        org: string;
        payer: string;
        username: string;
        passwordStdin?: boolean;
        totpSecretStdin?: boolean;
        json?: boolean;
      }) => {
        const username = options.username.trim();
        if (!username || username.length > 200)
          throw new ProvisioningError('the username must have 1 to 200 characters');
        if (!options.passwordStdin)
          throw new ProvisioningError('--password-stdin is required: secrets are never taken from arguments');
        if (!io.readStdin) throw new ProvisioningError('no stdin to read the secrets from');
        const lines = (await io.readStdin()).split(/\r?\n/);
        const password = lines[0] ?? '';
        if (password === '') throw new ProvisioningError('the password (first line of stdin) is empty');
        const totpSecret = options.totpSecretStdin ? totpSecretOf(lines[1] ?? '') : null;

        const database = await open();
        const cipher = database.cipher();
        await payerMustExist(database.dataSource, options.payer);
        const organization = await database.dataSource.query('SELECT 1 FROM organizations WHERE id = $1', [
          options.org,
        ]);
        if (organization.length === 0)
          throw new ProvisioningError(`organization ${options.org} does not exist`);
        const saved = await new TypeOrmPortalCredentials(database.dataSource, () => cipher).set({
          organizationId: options.org,
          payerId: options.payer,
          username,
          password,
          totpSecret,
        });
        io.out(options.json ? JSON.stringify(saved) : `portal credentials stored: ${summaryLine(saved)}`);
      },
    );
  credentials
    .command('list')
    .description("list an organization's stored portal sign-ins (never their secrets)")
    .requiredOption('--org <organizationId>')
    .option('--json', 'print JSON only')
    .action(async (options: { org: string; json?: boolean }) => {
      const database = await open();
      const list = await new TypeOrmPortalCredentials(database.dataSource, database.cipher).list(options.org);
      io.out(options.json ? JSON.stringify(list) : list.map(summaryLine).join('\n') || '(none)');
    });
  credentials
    .command('remove')
    .description("remove an organization's sign-in at a payer portal")
    .requiredOption('--org <organizationId>')
    .requiredOption('--payer <payerId>')
    .action(async (options: { org: string; payer: string }) => {
      const database = await open();
      const store = new TypeOrmPortalCredentials(database.dataSource, database.cipher);
      if (!(await store.remove(options.org, options.payer)))
        throw new ProvisioningError(`${options.org} has no portal credentials for ${options.payer}`);
      io.out(`portal credentials of ${options.org} for ${options.payer} removed`);
    });
}
