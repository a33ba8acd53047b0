import { TenancyAndCatalog1763740800000 } from './1763740800000-tenancy-and-catalog';
import { AuthorizationSchema1763741000000 } from './1763741000000-authorization-schema';

/** Every committed migration, oldest first. Listed explicitly so builds never depend on file globbing. */
export const MIGRATIONS = [TenancyAndCatalog1763740800000, AuthorizationSchema1763741000000];
