import express, { type Router } from 'express';
import { addRoutes, type Resource } from '../http/route-table';
import { jsonResponse, TAGS } from '../openapi/openapi.operations';
import { ref } from '../openapi/openapi.components';
import type { EventController } from './event.controller';
import { ListEventsQuery } from './event.request';

/** `/v1/events` (docs/decisions/0031-events-and-webhooks.md). */
export const EVENT_RESOURCE: Resource<EventController> = {
  mounts: [{ path: '/v1/events', tag: TAGS.events, operationIdSuffix: '' }],
  routes: {
    '/': {
      get: {
        serve: (c, req, res) => c.list(req, res),
        openapi: {
          operationId: 'listEvents',
          summary: 'List events',
          description:
            'The events of the key’s organization and environment, newest first, keyset-paginated; kept at ' +
            'least 30 days.',
          query: ListEventsQuery,
          responses: { 200: jsonResponse('A page of events.', ref('EventList')) },
          errors: ['request_validation_failed'],
        },
      },
    },
  },
};

export const eventRouter = (controller: EventController): Router =>
  addRoutes(express.Router(), EVENT_RESOURCE.routes, controller);
