import express, { type Router } from 'express';
import { addRoutes } from '../http/route-table';
import type { FileController } from './file.controller';

/** `/v1/files`: create and list, read one, complete its upload. */
export function fileRouter(controller: FileController): Router {
  return addRoutes(express.Router(), {
    '/': {
      post: (req, res) => controller.create(req, res),
      get: (req, res) => controller.list(req, res),
    },
    '/:fileId': { get: (req, res) => controller.retrieve(req, res) },
    '/:fileId/complete': { post: (req, res) => controller.complete(req, res) },
  });
}
