import { MAX_ID_LENGTH, MAX_RESOLUTION_NOTE_LENGTH, MAX_RESOLVE_ATTACHMENTS } from '@prior-auth/domain';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsNotEmpty,
  IsString,
  MaxLength,
} from 'class-validator';
import { Doc, OptionalText } from '../../openapi/request-schema';

/** `POST …/actions/{actionId}/resolve` (decision 0032): attachments already on the case, and a note. */
export class ResolveActionRequest {
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_RESOLVE_ATTACHMENTS)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(MAX_ID_LENGTH, { each: true })
  @Doc('Attachments already on the case that answer the request.')
  attachmentIds!: string[];

  @OptionalText(MAX_RESOLUTION_NOTE_LENGTH) resolutionNote?: string | null;
}
