import express, { type Router } from 'express';
import { asyncHandler } from '../http/async-handler';
import { methodNotAllowed } from '../http/method-not-allowed';
import type { FileController } from './file.controller';

/** `/v1/files`: create and list, read one, complete its upload. */
export function fileRouter(controller: FileController): Router {
  const router = express.Router();
  router
    .route('/')
    .post(asyncHandler((req, res) => controller.create(req, res)))
    .get(asyncHandler((req, res) => controller.list(req, res)))
    .all(methodNotAllowed);
  router
    .route('/:fileId')
    .get(asyncHandler((req, res) => controller.retrieve(req, res)))
    .all(methodNotAllowed);
  router
    .route('/:fileId/complete')
    .post(asyncHandler((req, res) => controller.complete(req, res)))
    .all(methodNotAllowed);
  return router;
}
