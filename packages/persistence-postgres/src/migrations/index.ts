import { TenancyAndCatalog1763740800000 } from './1763740800000-tenancy-and-catalog';

/** Every committed migration, oldest first. Listed explicitly so builds never depend on file globbing. */
export const MIGRATIONS = [TenancyAndCatalog1763740800000];
