import { type PortalAccess, type PortalAccessFacts } from '../ports/portal-access.port';

/** Portal connections (per payer) and stored credentials (per organization and payer), in memory. */
export class FakePortalAccess implements PortalAccess {
  readonly connectedPayers = new Set<string>();
  readonly credentials = new Set<string>();

  connect(payerId: string): this {
    this.connectedPayers.add(payerId);
    return this;
  }

  storeCredentials(organizationId: string, payerId: string): this {
    this.credentials.add(`${organizationId}|${payerId}`);
    return this;
  }

  async describe(organizationId: string, payerId: string): Promise<PortalAccessFacts> {
    return {
      connection: this.connectedPayers.has(payerId),
      credentials: this.credentials.has(`${organizationId}|${payerId}`),
    };
  }
}
