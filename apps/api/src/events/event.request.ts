import { MAX_ID_LENGTH, RESOURCE_EVENT_TYPES } from '@prior-auth/domain';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQuery } from '../http/pagination';
import { Doc } from '../openapi/request-schema';

export class ListEventsQuery extends PageQuery {
  @Doc('Only events of this type.')
  @IsOptional()
  @IsIn(RESOURCE_EVENT_TYPES, { message: `type must be one of ${RESOURCE_EVENT_TYPES.join(', ')}` })
  type?: string;

  @Doc('Only events of this case.')
  @IsOptional()
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  authorizationId?: string;
}
