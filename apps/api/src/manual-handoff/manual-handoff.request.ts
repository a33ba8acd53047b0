import {
  MAX_OPERATOR_NOTES_LENGTH,
  MAX_REFERENCE_NUMBER_LENGTH,
  MAX_REVOKE_REASON_LENGTH,
  REPORTED_OUTCOMES,
  UNABLE_TO_COMPLETE_REASONS,
} from '@prior-auth/domain';
import { IsDefined, IsIn, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { oneOf } from '../http/validation';
import { OptionalText } from '../openapi/request-schema';

/** The operator's claim; reconciliation with the payer decides what it proves. */
export class CompleteManualHandoffRequest {
  @IsDefined()
  @IsIn(REPORTED_OUTCOMES, oneOf('reportedOutcome', REPORTED_OUTCOMES))
  reportedOutcome!: (typeof REPORTED_OUTCOMES)[number];

  @OptionalText(
    MAX_REFERENCE_NUMBER_LENGTH,
    'The payer’s reference as the operator saw it; reconciliation looks it up at the payer.',
  )
  observedReferenceNumber?: string | null;

  @OptionalText(MAX_OPERATOR_NOTES_LENGTH) operatorNotes?: string | null;
}

export class UnableToCompleteManualHandoffRequest {
  @IsDefined()
  @IsIn(UNABLE_TO_COMPLETE_REASONS, oneOf('reason', UNABLE_TO_COMPLETE_REASONS))
  reason!: (typeof UNABLE_TO_COMPLETE_REASONS)[number];

  @OptionalText(MAX_OPERATOR_NOTES_LENGTH) operatorNotes?: string | null;
}

export class RevokeManualHandoffRequest {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(MAX_REVOKE_REASON_LENGTH) reason!: string;
  @OptionalText(MAX_OPERATOR_NOTES_LENGTH) notes?: string | null;
}

/** An empty or whitespace-only optional text is no text. */
export const textOrNull = (value: string | null | undefined): string | null =>
  value === undefined || value === null || value.trim() === '' ? null : value.trim();
