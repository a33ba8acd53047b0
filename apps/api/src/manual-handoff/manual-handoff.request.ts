import { REPORTED_OUTCOMES, UNABLE_TO_COMPLETE_REASONS } from '@prior-auth/domain';
import { IsDefined, IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

export const MAX_OPERATOR_NOTES_LENGTH = 4_000;
export const MAX_REFERENCE_NUMBER_LENGTH = 100;
export const MAX_REVOKE_REASON_LENGTH = 500;

const oneOf = (field: string, values: readonly string[]) => ({
  message: `${field} must be one of ${values.join(', ')}`,
});

/** The operator's claim; reconciliation with the payer decides what it proves. */
export class CompleteManualHandoffRequest {
  @IsDefined()
  @IsIn(REPORTED_OUTCOMES, oneOf('reportedOutcome', REPORTED_OUTCOMES))
  reportedOutcome!: (typeof REPORTED_OUTCOMES)[number];

  @IsOptional() @IsString() @MaxLength(MAX_REFERENCE_NUMBER_LENGTH) observedReferenceNumber?: string | null;
  @IsOptional() @IsString() @MaxLength(MAX_OPERATOR_NOTES_LENGTH) operatorNotes?: string | null;
}

export class UnableToCompleteManualHandoffRequest {
  @IsDefined()
  @IsIn(UNABLE_TO_COMPLETE_REASONS, oneOf('reason', UNABLE_TO_COMPLETE_REASONS))
  reason!: (typeof UNABLE_TO_COMPLETE_REASONS)[number];

  @IsOptional() @IsString() @MaxLength(MAX_OPERATOR_NOTES_LENGTH) operatorNotes?: string | null;
}

export class RevokeManualHandoffRequest {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(MAX_REVOKE_REASON_LENGTH) reason!: string;
  @IsOptional() @IsString() @MaxLength(MAX_OPERATOR_NOTES_LENGTH) notes?: string | null;
}

/** An empty or whitespace-only optional text is no text. */
export const textOrNull = (value: string | null | undefined): string | null =>
  value === undefined || value === null || value.trim() === '' ? null : value.trim();
