import {
  DomainError,
  routeServiceability,
  type PortalAccess,
  type PortalAccessFacts,
} from '@prior-auth/domain';
import {
  KeysetCursors,
  type CatalogServiceType,
  type CursorBinding,
  type TypeOrmPayerCatalog,
} from '@prior-auth/persistence-postgres';
import type { TokenSigner } from '@prior-auth/platform';
import type { Request, Response } from 'express';
import { inject, injectable } from 'inversify';
import { parseLimit } from '../http/pagination';
import { scopeOf } from '../http/request-context';
import { validateInput } from '../http/validation';
import { TOKENS } from '../tokens';
import { presentPayer, presentRoute } from './catalog.presenter';
import { ListPayersQuery, ListRoutesQuery } from './catalog.request';

/** Decision 0025: the payer catalog and the serviceable routes, both keyset-paginated. */
@injectable()
export class CatalogController {
  private readonly cursors: KeysetCursors;

  constructor(
    @inject(TOKENS.PayerCatalog) private readonly catalog: TypeOrmPayerCatalog,
    @inject(TOKENS.TokenSigner) signer: TokenSigner,
    @inject(TOKENS.PortalAccess) private readonly portalAccess: PortalAccess,
  ) {
    this.cursors = new KeysetCursors(signer);
  }

  /** Catalog cursors are bound to the caller and the filters like every list's (invalid → 422). */
  private after(binding: CursorBinding, cursor: string | undefined): { id: string } | undefined {
    return cursor === undefined ? undefined : { id: this.cursors.decodeAfterId(binding, cursor) };
  }

  private next(binding: CursorBinding, nextAfter: { id: string } | null): string | null {
    return nextAfter ? this.cursors.encodeAfterId(binding, nextAfter.id) : null;
  }

  async listPayers(req: Request, res: Response): Promise<void> {
    const scope = scopeOf(req);
    const query = validateInput(ListPayersQuery, req.query, 'query');
    const limit = parseLimit(query.limit);
    const filters = {
      q: query.q ?? null,
      state: query.state?.toUpperCase() ?? null,
      serviceType: query.serviceType ?? null,
    };
    const binding: CursorBinding = { resource: 'payers', scope, filters };
    const after = this.after(binding, query.cursor);
    const page = await this.catalog.listPayers({
      q: query.q,
      state: filters.state ?? undefined,
      serviceType: query.serviceType as CatalogServiceType | undefined,
      limit,
      after,
    });
    res.json({
      data: page.items.map(presentPayer),
      pagination: {
        nextCursor: this.next(binding, page.nextAfter),
      },
    });
  }

  async getPayer(req: Request, res: Response): Promise<void> {
    const payer = await this.catalog.getPayer(String(req.params.payerId));
    if (!payer) throw new DomainError('payer_not_found', 'No payer with this id is in the catalog.');
    res.json(presentPayer(payer));
  }

  async listRoutes(req: Request, res: Response): Promise<void> {
    const scope = scopeOf(req);
    const query = validateInput(ListRoutesQuery, req.query, 'query');
    const limit = parseLimit(query.limit);
    const filters = {
      payerId: query.payerId ?? null,
      insuranceState: query.insuranceState?.toUpperCase() ?? null,
      serviceType: query.serviceType ?? null,
      serviceCode: query.serviceCode ?? null,
    };
    const binding: CursorBinding = { resource: 'routes', scope, filters };
    const after = this.after(binding, query.cursor);
    const page = await this.catalog.listRoutes({
      payerId: query.payerId,
      insuranceState: filters.insuranceState ?? undefined,
      serviceType: query.serviceType as CatalogServiceType | undefined,
      serviceCode: query.serviceCode,
      limit,
      after,
    });
    // Production routes say whether the caller can use them now (decision 0021): one lookup per payer.
    const facts = new Map<string, PortalAccessFacts | null>();
    for (const payerId of new Set(page.items.map((route) => route.templateSelection.payerId))) {
      facts.set(
        payerId,
        scope.environment === 'sandbox'
          ? null
          : await this.portalAccess.describe(scope.organizationId, payerId),
      );
    }
    res.json({
      data: page.items.map((route) =>
        presentRoute(
          route,
          routeServiceability(
            scope.environment,
            route.portalAuthModes,
            facts.get(route.templateSelection.payerId) ?? null,
          ),
        ),
      ),
      pagination: {
        nextCursor: this.next(binding, page.nextAfter),
      },
    });
  }
}
