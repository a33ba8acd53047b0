import {
  ALLOWED_FILE_CONTENT_TYPES,
  CLIENT_FILE_PURPOSES,
  MAX_CONTENT_TYPE_LENGTH,
  MAX_FILE_NAME_LENGTH,
  MAX_FILE_SIZE_BYTES,
  MAX_PURPOSE_LENGTH,
} from '@prior-auth/domain';
import { IsDefined, IsNumber, IsString, MaxLength } from 'class-validator';
import { PageQuery } from '../http/pagination';
import { Doc, DocEnum } from '../openapi/request-schema';

/*
 * Request shapes of the files endpoints. The DTOs check the JSON shape (missing fields, wrong types, unknown
 * fields, length caps → 422 request_validation_failed); whether a value is allowed (purpose, content type,
 * size range, a blank name) is the File aggregate's rule and answers 422 file_content_mismatch (ADR 0006).
 */

export class CreateFileRequest {
  @Doc('Not blank; becomes the attachment label.')
  @IsDefined()
  @IsString()
  @MaxLength(MAX_FILE_NAME_LENGTH)
  fileName!: string;

  @DocEnum(ALLOWED_FILE_CONTENT_TYPES, 'Checked against the bytes at completion.')
  @IsDefined()
  @IsString()
  @MaxLength(MAX_CONTENT_TYPE_LENGTH)
  contentType!: string;

  @Doc(`The exact size in bytes, 1 to ${MAX_FILE_SIZE_BYTES} (25 MiB).`)
  @IsDefined()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  sizeBytes!: number;

  @DocEnum(
    CLIENT_FILE_PURPOSES,
    'What the file is for; `payer_evidence` and `submission_preview` files are created by the service only ' +
      '(422 file_content_mismatch).',
  )
  @IsDefined()
  @IsString()
  @MaxLength(MAX_PURPOSE_LENGTH)
  purpose!: string;
}

/** A page of files: no filter. */
export class ListFilesQuery extends PageQuery {}
