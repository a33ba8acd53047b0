import type {
  CompleteFileUseCase,
  CreateFileUseCase,
  GetFileUseCase,
  ListFilesUseCase,
} from '@prior-auth/domain';
import type { Request, Response } from 'express';
import { inject, injectable } from 'inversify';
import { CommandRunner } from '../http/command-runner';
import { parseLimit } from '../http/pagination';
import { pathParam, scopeOf } from '../http/request-context';
import { runCommand } from '../http/route-table';
import { assertEmptyBody, validateInput } from '../http/validation';
import type { ReadAuditRecorder } from '../audit/read-audit.recorder';
import type { TransactionBound } from '../http/transaction-bound';
import { TOKENS } from '../tokens';
import { presentFile } from '@prior-auth/presentation';
import { FILE_OPERATIONS } from './file.openapi';
import { CreateFileRequest, ListFilesQuery } from './file.request';

/** Every file use case the API drives, on the configured BlobStore; built in the composition root, per command for commands. */
export interface FileUseCases {
  create: CreateFileUseCase;
  complete: CompleteFileUseCase;
  get: GetFileUseCase;
  list: ListFilesUseCase;
}

/**
 * Steps 1 and 3 of the upload flow (decision 0027) and the reads. Step 2, the raw bytes, goes to the upload
 * URL (the filesystem adapter's `/blobs/upload/:token`, or the S3 bucket) with no API key. Create and
 * complete are commands: the Idempotency-Key is optional and honoured when sent (decision 0023), validation
 * failures are never stored, domain refusals are.
 */
@injectable()
export class FileController {
  constructor(
    @inject(TOKENS.FileUseCases) private readonly useCases: TransactionBound<FileUseCases>,
    @inject(CommandRunner) private readonly commands: CommandRunner,
    @inject(TOKENS.ReadAudit) private readonly readAudit: ReadAuditRecorder,
  ) {}

  async create(req: Request, res: Response): Promise<void> {
    const scope = scopeOf(req);
    await runCommand(
      this.commands,
      req,
      res,
      {
        operation: 'files.create',
        preconditions: FILE_OPERATIONS.create,
        params: {},
        body: () => validateInput(CreateFileRequest, req.body, 'body'),
      },
      async (body, _expectedVersion, tx) => {
        const { file, uploadUrl } = await this.useCases.within(tx).create.execute(scope, {
          fileName: body.fileName,
          contentType: body.contentType,
          sizeBytes: body.sizeBytes,
          purpose: body.purpose,
        });
        return {
          status: 201,
          headers: { Location: `${req.baseUrl}/${file.id}` },
          body: presentFile(file, { uploadUrl }),
        };
      },
    );
  }

  async complete(req: Request, res: Response): Promise<void> {
    const scope = scopeOf(req);
    const fileId = pathParam(req, 'fileId');
    await runCommand(
      this.commands,
      req,
      res,
      {
        operation: 'files.complete',
        preconditions: FILE_OPERATIONS.complete,
        params: { fileId },
        body: () => assertEmptyBody(req.body),
      },
      async (_body, _expectedVersion, tx) => ({
        status: 200,
        headers: {},
        body: presentFile(await this.useCases.within(tx).complete.execute(scope, { fileId })),
      }),
    );
  }

  async retrieve(req: Request, res: Response): Promise<void> {
    const { file, downloadUrl } = await this.useCases.get.execute(scopeOf(req), {
      fileId: pathParam(req, 'fileId'),
    });
    this.readAudit.record(req, 'file', [file.id], 'retrieve');
    res.json(presentFile(file, { downloadUrl }));
  }

  async list(req: Request, res: Response): Promise<void> {
    const scope = scopeOf(req);
    const query = validateInput(ListFilesQuery, req.query, 'query');
    const limit = parseLimit(query.limit);
    // The repository signs cursors bound to the tenant (InvalidCursorError → 422 at ["query", "cursor"]).
    const page = await this.useCases.list.execute(scope, { limit, cursor: query.cursor });
    this.readAudit.record(
      req,
      'file',
      page.items.map((file) => file.id),
      'list',
    );
    res.json({
      data: page.items.map((file) => presentFile(file)),
      pagination: { nextCursor: page.nextCursor },
    });
  }
}
