import { DomainError, isValidNpi, type Environment, type OrganizationDirectory } from '@prior-auth/domain';
import { generateApiKey } from './api-keys';
import { isApiVersion, type ApiVersion } from './api-versions';
import { RandomIdGenerator } from './ids';

const ids = new RandomIdGenerator();

export interface IssuedApiKey {
  id: string;
  environment: Environment;
  /** The secret, shown once; only its hash is stored. */
  secret: string;
  /** The pinned API version; null → the current one (decision 0029). */
  apiVersion: ApiVersion | null;
}

export class ProvisioningError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProvisioningError';
  }
}

export function assertValidNpi(npi: string): void {
  if (!isValidNpi(npi)) {
    throw new ProvisioningError(`"${npi}" is not a valid NPI (10 digits with a correct check digit)`);
  }
}

export async function issueApiKey(
  directory: OrganizationDirectory,
  organizationId: string,
  environment: Environment,
  apiVersion: ApiVersion | null = null,
  label: string | null = null,
): Promise<IssuedApiKey> {
  assertValidLabel(label);
  if (apiVersion !== null && !isApiVersion(apiVersion)) {
    throw new ProvisioningError(`"${String(apiVersion)}" is not an API version`);
  }
  if (!(await directory.findOrganization(organizationId))) {
    throw new ProvisioningError(`organization ${organizationId} does not exist`);
  }
  const key = generateApiKey(environment);
  const record = await directory.createApiKey({
    id: ids.newId('key'),
    organizationId,
    environment,
    keyHash: key.hash,
    displayPrefix: key.displayPrefix,
    apiVersion,
    label,
  });
  return { id: record.id, environment, secret: key.secret, apiVersion };
}

/** The longest overlap a rotation may give the old key (decision 0035). */
export const MAX_KEY_ROTATION_OVERLAP_MS = 30 * 86_400_000;

function assertValidLabel(label: string | null | undefined): void {
  if (label !== null && label !== undefined && (label.trim() === '' || label.length > 100))
    throw new ProvisioningError('a key label must have 1 to 100 characters');
}

/**
 * A new secret for an active key (decision 0035): a new key of the same organization, environment, pinned
 * version and label (unless `label` is given), and the old key expires `overlapMs` from now (0: at once), so
 * clients can switch without an outage.
 */
export async function rotateApiKey(
  directory: OrganizationDirectory,
  oldKeyId: string,
  overlapMs: number,
  label?: string | null,
  now: Date = new Date(),
): Promise<IssuedApiKey & { replaces: string; oldKeyExpiresAt: Date }> {
  if (!Number.isInteger(overlapMs) || overlapMs < 0 || overlapMs > MAX_KEY_ROTATION_OVERLAP_MS)
    throw new ProvisioningError('the overlap must be between 0 and 30 days');
  assertValidLabel(label);
  // The environment is in the secret's prefix: the old key's, read before the new secret is made.
  const environment = await directory.findApiKeyEnvironment(oldKeyId);
  if (!environment) throw new ProvisioningError(`no active key ${oldKeyId}`);
  const key = generateApiKey(environment);
  const rotated = await directory.rotateApiKey(
    oldKeyId,
    {
      id: ids.newId('key'),
      organizationId: '',
      environment,
      keyHash: key.hash,
      displayPrefix: key.displayPrefix,
      ...(label === undefined ? {} : { label }),
    },
    new Date(now.getTime() + overlapMs),
  );
  if (!rotated) throw new ProvisioningError(`no active key ${oldKeyId}`);
  return {
    id: rotated.replacement.id,
    environment,
    secret: key.secret,
    apiVersion: rotated.replacement.apiVersion as ApiVersion | null,
    replaces: oldKeyId,
    oldKeyExpiresAt: rotated.oldKeyExpiresAt,
  };
}

/** An organization with one registered NPI and one API key per environment (decision 0024's `bootstrap`). */
export async function bootstrapOrganization(
  directory: OrganizationDirectory,
  input: { name: string; npi: string },
): Promise<{ organizationId: string; providerNpi: string; apiKeys: Record<Environment, string> }> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 200)
    throw new ProvisioningError('the organization name must have 1 to 200 characters');
  assertValidNpi(input.npi);
  const organization = await directory.createOrganization({ id: ids.newId('org'), name });
  await directory.registerProviderNpi(organization.id, input.npi);
  const sandbox = await issueApiKey(directory, organization.id, 'sandbox');
  const production = await issueApiKey(directory, organization.id, 'production');
  return {
    organizationId: organization.id,
    providerNpi: input.npi,
    apiKeys: { sandbox: sandbox.secret, production: production.secret },
  };
}

export const isProvisioningError = (error: unknown): error is ProvisioningError | DomainError =>
  error instanceof ProvisioningError || error instanceof DomainError;
