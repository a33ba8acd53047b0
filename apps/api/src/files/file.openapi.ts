import { header, headers, ref } from '../openapi/openapi.components';
import { COMMAND_CONFLICTS, jsonBody, jsonResponse, type OperationDoc } from '../openapi/openapi.operations';
import { string } from '../openapi/schema-builders';
import { CreateFileRequest, ListFilesQuery } from './file.request';

/** What the OpenAPI document says of each `/v1/files` operation beyond its route (`file.routes.ts`). */
export const FILE_OPERATIONS = {
  create: {
    operationId: 'createFile',
    summary: 'Create a file (upload step 1)',
    description:
      'Answers the file with `status: pending_upload` and a signed `uploadUrl`. Step 2: `PUT` the raw bytes ' +
      'to `uploadUrl` with the declared Content-Type and no API key. Step 3: complete the file.',
    idempotencyKey: 'optional',
    requestBody: jsonBody(CreateFileRequest, true),
    responses: {
      201: jsonResponse('The created file, with its upload URL.', ref('File'), {
        Location: { ...headers.Location, schema: string({ pattern: '^/v1/files/file_[A-Za-z0-9]+$' }) },
        'Idempotent-Replayed': header('IdempotentReplayed'),
      }),
    },
    errors: ['request_validation_failed', 'file_content_mismatch', ...COMMAND_CONFLICTS],
  },
  list: {
    operationId: 'listFiles',
    summary: 'List files',
    description: 'Newest first, keyset-paginated. Listed files carry no URLs.',
    query: ListFilesQuery,
    responses: { 200: jsonResponse('A page of files.', ref('FileList')) },
    errors: ['request_validation_failed'],
  },
  retrieve: {
    operationId: 'getFile',
    summary: 'Retrieve a file',
    description: 'A ready file carries a fresh `downloadUrl` (valid 5 minutes).',
    responses: { 200: jsonResponse('The file.', ref('File')) },
    errors: ['file_not_found'],
  },
  complete: {
    operationId: 'completeFile',
    summary: 'Complete a file upload (upload step 3)',
    description:
      'Checks that the bytes arrived with the declared size and an allowed content type (judged from the ' +
      'bytes) and answers the file `ready`. A failed check leaves it pending_upload: upload again and retry.',
    idempotencyKey: 'optional',
    requestBody: jsonBody('EmptyBody', false),
    responses: {
      200: jsonResponse('The ready file.', ref('File'), {
        'Idempotent-Replayed': header('IdempotentReplayed'),
      }),
    },
    errors: [
      'file_not_found',
      'file_already_completed',
      'file_upload_incomplete',
      'file_content_mismatch',
      'request_validation_failed',
      ...COMMAND_CONFLICTS,
    ],
  },
} satisfies Record<string, OperationDoc>;
