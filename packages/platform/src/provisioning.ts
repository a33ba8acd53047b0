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
  /** The pinned API version; null → the current one (decision 17). */
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
): Promise<IssuedApiKey> {
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
  });
  return { id: record.id, environment, secret: key.secret, apiVersion };
}

/** An organization with one registered NPI and one API key per environment (decision 9's `bootstrap`). */
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
