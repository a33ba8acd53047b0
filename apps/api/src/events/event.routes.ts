import express, { type Router } from 'express';
import { addRoutes } from '../http/route-table';
import type { EventController } from './event.controller';

/** `/v1/events` (docs/decisions/0031-events-and-webhooks.md). */
export const eventRouter = (controller: EventController): Router =>
  addRoutes(express.Router(), { '/': { get: (req, res) => controller.list(req, res) } });
