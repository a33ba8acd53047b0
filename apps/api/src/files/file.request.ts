import { IsDefined, IsNumber, IsOptional, IsString, MaxLength } from 'class-validator';

/*
 * Request shapes of the files endpoints. The DTOs check the JSON shape (missing fields, wrong types, unknown
 * fields, length caps → 422 request_validation_failed); whether a value is allowed (purpose, content type,
 * size range, a blank name) is the File aggregate's rule and answers 422 file_content_mismatch (ADR 0006).
 */

export const MAX_FILE_NAME_LENGTH = 255;
export const MAX_CONTENT_TYPE_LENGTH = 255;
export const MAX_PURPOSE_LENGTH = 100;

export class CreateFileRequest {
  @IsDefined() @IsString() @MaxLength(MAX_FILE_NAME_LENGTH) fileName!: string;
  @IsDefined() @IsString() @MaxLength(MAX_CONTENT_TYPE_LENGTH) contentType!: string;
  @IsDefined() @IsNumber({ allowNaN: false, allowInfinity: false }) sizeBytes!: number;
  @IsDefined() @IsString() @MaxLength(MAX_PURPOSE_LENGTH) purpose!: string;
}

export class ListFilesQuery {
  @IsOptional() @IsString() limit?: string;
  @IsOptional() @IsString() @MaxLength(2048) cursor?: string;
}
