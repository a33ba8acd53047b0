import { pipeline } from 'node:stream/promises';
import {
  BLOB_DOWNLOAD_ROUTE,
  BLOB_UPLOAD_ROUTE,
  type BlobHttpFailure,
  type BlobStorage,
} from '@prior-auth/blob-storage';
import type { Logger } from '@prior-auth/platform';
import express, { type RequestHandler, type Response, type Router } from 'express';
import { asyncHandler } from '../http/async-handler';
import { BLOB_HTTP_ERROR_STATUS, RETRYABLE_BLOB_HTTP_ERRORS } from '../http/error-mapping';
import { HttpError } from '../http/http-error';
import { methodNotAllowed } from '../http/method-not-allowed';
import { requestContext } from '../http/request-context';

/** A refusal of the blob handler as the API's error envelope (with the handler's headers, e.g. Connection). */
const blobError = (failure: BlobHttpFailure): HttpError =>
  new HttpError(BLOB_HTTP_ERROR_STATUS[failure.error.code], failure.error.code, failure.error.message, {
    details: failure.error.details,
    headers: failure.headers,
    retryable: RETRYABLE_BLOB_HTTP_ERRORS.has(failure.error.code),
  });

/** The path is a bearer capability: the message never repeats it. */
const notServed: RequestHandler = (_req, _res, next) =>
  next(
    new HttpError(
      404,
      'not_found',
      'This service does not serve file bytes; use the upload or download URL the files API returned.',
    ),
  );

const setHeaders = (res: Response, headers: Record<string, string>): void => {
  // setHeader, not res.set: the Content-Type must stay exactly what the handler chose.
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
};

/**
 * `PUT /blobs/upload/:token` and `GET /blobs/download/:token`, the filesystem adapter's byte transport
 * (decision 0027: "PUT <uploadUrl> takes the raw bytes with no API key"). Mounted before the JSON
 * content-type check and body parser, outside `/v1` and its API key: the signed token is the credential, and
 * the request stream goes to the handler unread. With S3 the presigned URLs point at the bucket and these
 * paths answer 404.
 */
export function blobRouter(storage: BlobStorage, logger: Logger): Router {
  const router = express.Router();
  const http = storage.http;
  if (http === null) {
    router.all(BLOB_UPLOAD_ROUTE, notServed);
    router.all(BLOB_DOWNLOAD_ROUTE, notServed);
    return router;
  }

  router
    .route(BLOB_UPLOAD_ROUTE)
    .put(
      asyncHandler(async (req, res) => {
        const result = await http.handleUpload(String(req.params.token), req, req.headers);
        if (!result.ok) throw blobError(result);
        setHeaders(res, result.headers);
        res.status(result.status).json(result.body);
      }),
    )
    .all(methodNotAllowed);

  router
    .route(BLOB_DOWNLOAD_ROUTE)
    .get(
      asyncHandler(async (req, res) => {
        const result = await http.handleDownload(String(req.params.token));
        if (!result.ok) throw blobError(result);
        res.status(result.status);
        setHeaders(res, result.headers);
        try {
          await pipeline(result.stream, res);
        } catch (error) {
          // No error answer is possible any more: pipeline has destroyed the response, so the client sees a
          // cut-off body, never a complete-looking one. Usually the client just went away.
          const code = (error as NodeJS.ErrnoException | undefined)?.code;
          const clientGone =
            code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET' || code === 'EPIPE';
          logger[clientGone ? 'debug' : 'error'](
            { requestId: requestContext(req).requestId, err: { name: (error as Error)?.name, code } },
            'blob download ended early',
          );
        }
      }),
    )
    .all(methodNotAllowed);
  return router;
}
