import { MAX_ID_LENGTH, MAX_SERVICE_CODE_LENGTH, SERVICE_TYPES } from '@prior-auth/domain';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { oneOf } from '../http/validation';

/** Longest text `q` searches payer names and aliases for. */
export const MAX_PAYER_SEARCH_LENGTH = 100;

export class ListPayersQuery {
  @IsOptional() @IsString() @MaxLength(MAX_PAYER_SEARCH_LENGTH) q?: string;
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z]{2}$/, { message: 'state must be a two-letter state code' })
  state?: string;
  @IsOptional()
  @IsIn(SERVICE_TYPES, oneOf('serviceType', SERVICE_TYPES))
  serviceType?: string;
  @IsOptional() @IsString() limit?: string;
  @IsOptional() @IsString() cursor?: string;
}

export class ListRoutesQuery {
  @IsOptional() @IsString() @MaxLength(MAX_ID_LENGTH) payerId?: string;
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z]{2}$/, { message: 'insuranceState must be a two-letter state code' })
  insuranceState?: string;
  @IsOptional()
  @IsIn(SERVICE_TYPES, oneOf('serviceType', SERVICE_TYPES))
  serviceType?: string;
  @IsOptional() @IsString() @MaxLength(MAX_SERVICE_CODE_LENGTH) serviceCode?: string;
  @IsOptional() @IsString() limit?: string;
  @IsOptional() @IsString() cursor?: string;
}
