import { MAX_ID_LENGTH, RESOURCE_EVENT_TYPES } from '@prior-auth/domain';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

export class ListEventsQuery {
  @IsOptional()
  @IsIn(RESOURCE_EVENT_TYPES, { message: `type must be one of ${RESOURCE_EVENT_TYPES.join(', ')}` })
  type?: string;

  @IsOptional() @IsString() @MaxLength(MAX_ID_LENGTH) authorizationId?: string;
  @IsOptional() @IsString() limit?: string;
  @IsOptional() @IsString() @MaxLength(2048) cursor?: string;
}
