import express, { type Router } from 'express';
import { addRoutes, type Resource } from '../http/route-table';
import { TAGS } from '../openapi/openapi.operations';
import type { FileController } from './file.controller';
import { FILE_OPERATIONS as DOC } from './file.openapi';

/** `/v1/files`: create and list, read one, complete its upload. */
export const FILE_RESOURCE: Resource<FileController> = {
  mounts: [{ path: '/v1/files', tag: TAGS.files, operationIdSuffix: '' }],
  routes: {
    '/': {
      post: { serve: (c, req, res) => c.create(req, res), openapi: DOC.create },
      get: { serve: (c, req, res) => c.list(req, res), openapi: DOC.list },
    },
    '/:fileId': { get: { serve: (c, req, res) => c.retrieve(req, res), openapi: DOC.retrieve } },
    '/:fileId/complete': { post: { serve: (c, req, res) => c.complete(req, res), openapi: DOC.complete } },
  },
};

export const fileRouter = (controller: FileController): Router =>
  addRoutes(express.Router(), FILE_RESOURCE.routes, controller);
