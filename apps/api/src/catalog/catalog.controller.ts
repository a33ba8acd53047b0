import { DomainError } from '@prior-auth/domain';
import type { CatalogServiceType, TypeOrmPayerCatalog } from '@prior-auth/persistence-postgres';
import type { TokenSigner } from '@prior-auth/platform';
import type { Request, Response } from 'express';
import { inject, injectable } from 'inversify';
import { CursorCodec, parseLimit } from '../http/pagination';
import { scopeOf } from '../http/request-context';
import { validateInput } from '../http/validation';
import { TOKENS } from '../tokens';
import { presentPayer, presentRoute } from './catalog.presenter';
import { ListPayersQuery, ListRoutesQuery } from './catalog.request';

/** Decisions 10 and 11: the payer catalog and the serviceable routes, both keyset-paginated. */
@injectable()
export class CatalogController {
  private readonly payerCursors: CursorCodec;
  private readonly routeCursors: CursorCodec;

  constructor(
    @inject(TOKENS.PayerCatalog) private readonly catalog: TypeOrmPayerCatalog,
    @inject(TOKENS.TokenSigner) signer: TokenSigner,
  ) {
    this.payerCursors = new CursorCodec(signer, 'cursor:payers');
    this.routeCursors = new CursorCodec(signer, 'cursor:routes');
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
    const after = this.payerCursors.decode<{ id: string }>(scope, filters, query.cursor);
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
        nextCursor: page.nextAfter ? this.payerCursors.encode(scope, filters, page.nextAfter) : null,
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
    const after = this.routeCursors.decode<{ id: string }>(scope, filters, query.cursor);
    const page = await this.catalog.listRoutes({
      payerId: query.payerId,
      insuranceState: filters.insuranceState ?? undefined,
      serviceType: query.serviceType as CatalogServiceType | undefined,
      serviceCode: query.serviceCode,
      limit,
      after,
    });
    res.json({
      data: page.items.map(presentRoute),
      pagination: {
        nextCursor: page.nextAfter ? this.routeCursors.encode(scope, filters, page.nextAfter) : null,
      },
    });
  }
}
