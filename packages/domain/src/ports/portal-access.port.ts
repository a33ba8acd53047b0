/** What is configured for reaching one payer's portal on behalf of one organization (decision 0021). */
export interface PortalAccessFacts {
  /** The payer has a portal connection (base URL + page script). */
  connection: boolean;
  /** The organization has stored credentials for the payer's portal. */
  credentials: boolean;
}

/**
 * Read side of portal connections and stored credentials: whether a production route can be served. Never
 * returns a secret.
 */
export interface PortalAccess {
  describe(organizationId: string, payerId: string): Promise<PortalAccessFacts>;
}
