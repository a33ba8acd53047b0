import { MAX_ID_LENGTH, MAX_SERVICE_CODE_LENGTH, SERVICE_TYPES } from '@prior-auth/domain';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PageQuery } from '../http/pagination';
import { oneOf } from '../http/validation';
import { Doc } from '../openapi/request-schema';

/** Longest text `q` searches payer names and aliases for. */
export const MAX_PAYER_SEARCH_LENGTH = 100;

export class ListPayersQuery extends PageQuery {
  @Doc('Matches the display name or an alias.')
  @IsOptional()
  @IsString()
  @MaxLength(MAX_PAYER_SEARCH_LENGTH)
  q?: string;

  @Doc('Only payers serving this state.')
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z]{2}$/, { message: 'state must be a two-letter state code' })
  state?: string;

  @Doc('Only payers supporting this service type.')
  @IsOptional()
  @IsIn(SERVICE_TYPES, oneOf('serviceType', SERVICE_TYPES))
  serviceType?: string;
}

export class ListRoutesQuery extends PageQuery {
  @Doc('Only routes of this payer.') @IsOptional() @IsString() @MaxLength(MAX_ID_LENGTH) payerId?: string;

  @Doc('Only routes for this state.')
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z]{2}$/, { message: 'insuranceState must be a two-letter state code' })
  insuranceState?: string;

  @Doc('Only routes for this service type.')
  @IsOptional()
  @IsIn(SERVICE_TYPES, oneOf('serviceType', SERVICE_TYPES))
  serviceType?: string;

  @Doc('Only routes for this service code.')
  @IsOptional()
  @IsString()
  @MaxLength(MAX_SERVICE_CODE_LENGTH)
  serviceCode?: string;
}
