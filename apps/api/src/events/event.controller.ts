import type { ListEventsUseCase, ResourceEventType } from '@prior-auth/domain';
import type { Request, Response } from 'express';
import { isLegacyRequest } from '../http/api-version.middleware';
import { parseLimit } from '../http/pagination';
import { scopeOf } from '../http/request-context';
import { validateInput } from '../http/validation';
import { presentEvent } from '@prior-auth/presentation';
import { ListEventsQuery } from './event.request';

/** `GET /v1/events`: the tenant's events, newest first (docs/decisions/0031-events-and-webhooks.md). */
export class EventController {
  constructor(private readonly listEvents: ListEventsUseCase) {}

  async list(req: Request, res: Response): Promise<void> {
    const query = validateInput(ListEventsQuery, req.query, 'query');
    const limit = parseLimit(query.limit);
    // The log signs cursors bound to the tenant and both filters (InvalidCursorError → 422).
    const page = await this.listEvents.execute(scopeOf(req), {
      ...(query.type === undefined ? {} : { type: query.type as ResourceEventType }),
      ...(query.authorizationId === undefined ? {} : { authorizationId: query.authorizationId }),
      limit,
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
    const version = isLegacyRequest(req) ? 'legacy' : 'current';
    res.json({
      data: page.items.map((event) => presentEvent(event, version)),
      pagination: { nextCursor: page.nextCursor },
    });
  }
}
