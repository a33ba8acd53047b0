import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

const SERVICE_TYPES = ['inpatient', 'outpatient', 'drug'];

export class ListPayersQuery {
  @IsOptional() @IsString() @MaxLength(100) q?: string;
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z]{2}$/, { message: 'state must be a two-letter state code' })
  state?: string;
  @IsOptional()
  @IsIn(SERVICE_TYPES, { message: `serviceType must be one of ${SERVICE_TYPES.join(', ')}` })
  serviceType?: string;
  @IsOptional() @IsString() limit?: string;
  @IsOptional() @IsString() cursor?: string;
}

export class ListRoutesQuery {
  @IsOptional() @IsString() @MaxLength(100) payerId?: string;
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z]{2}$/, { message: 'insuranceState must be a two-letter state code' })
  insuranceState?: string;
  @IsOptional()
  @IsIn(SERVICE_TYPES, { message: `serviceType must be one of ${SERVICE_TYPES.join(', ')}` })
  serviceType?: string;
  @IsOptional() @IsString() @MaxLength(50) serviceCode?: string;
  @IsOptional() @IsString() limit?: string;
  @IsOptional() @IsString() cursor?: string;
}
