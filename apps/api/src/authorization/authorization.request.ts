import {
  AUTHORIZATION_STATUSES,
  type Answer,
  type CreateAuthorizationCommand,
  type QuestionnaireResponseItem,
} from '@prior-auth/domain';
import { Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsInt,
  IsIn,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import type { ValidationIssue } from '../http/http-error';

/*
 * Request bodies of the authorization endpoints. Every string has a length cap and every array a size cap, so
 * an oversized value is a 422 at its field rather than a row or a requirements evaluation of arbitrary size.
 * Unknown fields are refused by `validateInput` (whitelist + forbidNonWhitelisted).
 */

export const SERVICE_TYPES = ['inpatient', 'outpatient', 'drug'] as const;
export const SERVICE_CODE_SYSTEMS = ['hcpcs', 'cpt', 'ndc'] as const;
export const FINAL_SUBMISSION_POLICIES = ['automatic', 'requires_confirmation'] as const;
export const PORTAL_AUTH_MODES = ['automated', 'customer_login'] as const;

export const MAX_ID_LENGTH = 100;
export const MAX_LINK_ID_LENGTH = 255;
export const MAX_ANSWER_STRING_LENGTH = 10_000;
export const MAX_RESPONSE_ITEMS = 1_000;
export const MAX_ANSWERS_PER_ITEM = 100;
export const MAX_DOCUMENT_TYPES = 20;
export const MAX_DESCRIPTION_LENGTH = 2_000;

/** Optional, but `null` is not "absent": it is validated (and refused) like any other wrong value. */
const IsOptionalNotNull = () => ValidateIf((_object, value) => value !== undefined);

const oneOf = (field: string, values: readonly string[]) => ({
  message: `${field} must be one of ${values.join(', ')}`,
});

/** The fields both API versions validate alike; each version's class adds `serviceCodeSystem`. */
export class TemplateSelectionFields {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(MAX_ID_LENGTH) payerId!: string;

  @IsDefined()
  @IsString()
  @Matches(/^[A-Za-z]{2}$/, { message: 'insuranceState must be a two-letter state code' })
  insuranceState!: string;

  @IsDefined()
  @IsIn(SERVICE_TYPES, oneOf('serviceType', SERVICE_TYPES))
  serviceType!: (typeof SERVICE_TYPES)[number];

  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(50) serviceCode!: string;
}

export class TemplateSelectionRequest extends TemplateSelectionFields {
  @IsDefined()
  @IsIn(SERVICE_CODE_SYSTEMS, oneOf('serviceCodeSystem', SERVICE_CODE_SYSTEMS))
  serviceCodeSystem!: (typeof SERVICE_CODE_SYSTEMS)[number];
}

/**
 * `finalSubmission` may be absent here: a missing policy or policy.finalSubmission is the spec's
 * `400 final_submission_policy_required`, decided after validation (see `finalSubmissionPolicyOf`). A present
 * but unknown value is a 422 like any other enum.
 */
export class PolicyRequest {
  @IsOptional()
  @IsIn(FINAL_SUBMISSION_POLICIES, oneOf('finalSubmission', FINAL_SUBMISSION_POLICIES))
  finalSubmission?: (typeof FINAL_SUBMISSION_POLICIES)[number] | null;
}

export class CodingRequest {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(MAX_LINK_ID_LENGTH) code!: string;
}

/** A FHIR Quantity answer: the unit is checked against the item's `units` by the requirements engine. */
export class QuantityRequest {
  @IsDefined() @IsNumber({ allowNaN: false, allowInfinity: false }) value!: number;
  @IsOptionalNotNull() @IsString() @IsNotEmpty() @MaxLength(MAX_LINK_ID_LENGTH) unit?: string;
  @IsOptionalNotNull() @IsString() @IsNotEmpty() @MaxLength(MAX_ANSWER_STRING_LENGTH) system?: string;
  @IsOptionalNotNull() @IsString() @IsNotEmpty() @MaxLength(MAX_LINK_ID_LENGTH) code?: string;
}

/** Exactly one value field is set; that rule spans fields, so `answerIssues` checks it. */
export class AnswerRequest {
  @IsOptionalNotNull() @IsString() @MaxLength(MAX_ANSWER_STRING_LENGTH) valueString?: string;
  @IsOptionalNotNull() @IsBoolean() valueBoolean?: boolean;
  /** Calendar validity is the requirements engine's job (`invalid_date` issue), like every answer rule. */
  @IsOptionalNotNull() @IsString() @MaxLength(32) valueDate?: string;
  @IsOptionalNotNull() @IsNumber({ allowNaN: false, allowInfinity: false }) valueDecimal?: number;

  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => CodingRequest)
  valueCoding?: CodingRequest;

  /** Whole-number and measured answers of `decimal` items whose `valueType` says so (docs/decisions/0018). */
  @IsOptionalNotNull() @IsInt() valueInteger?: number;

  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => QuantityRequest)
  valueQuantity?: QuantityRequest;

  /** Format checks (`hh:mm[:ss]`, ISO 8601 date-time) are the requirements engine's, like `valueDate`. */
  @IsOptionalNotNull() @IsString() @MaxLength(32) valueTime?: string;
  @IsOptionalNotNull() @IsString() @MaxLength(64) valueDateTime?: string;
}

export class QuestionnaireResponseItemRequest {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(MAX_LINK_ID_LENGTH) linkId!: string;

  /** An empty array clears the item's answers (decision 15). */
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(MAX_ANSWERS_PER_ITEM)
  @ValidateNested({ each: true })
  @Type(() => AnswerRequest)
  answer!: AnswerRequest[];
}

export class QuestionnaireResponseRequest {
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(MAX_RESPONSE_ITEMS)
  @ValidateNested({ each: true })
  @Type(() => QuestionnaireResponseItemRequest)
  item!: QuestionnaireResponseItemRequest[];
}

/** The create fields both API versions validate alike; each version's class adds the rest. */
export class CreateAuthorizationFields {
  @IsDefined()
  @IsString()
  @Matches(/^\d{10}$/, { message: 'providerNpi must be a 10-digit NPI' })
  providerNpi!: string;

  @IsOptionalNotNull()
  @IsIn(PORTAL_AUTH_MODES, oneOf('portalAuthMode', PORTAL_AUTH_MODES))
  portalAuthMode?: (typeof PORTAL_AUTH_MODES)[number];

  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => QuestionnaireResponseRequest)
  questionnaireResponse?: QuestionnaireResponseRequest;
}

export class CreateAuthorizationRequest extends CreateAuthorizationFields {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => TemplateSelectionRequest)
  templateSelection!: TemplateSelectionRequest;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PolicyRequest)
  policy?: PolicyRequest | null;
}

/** Decision 18: under 2024-01-01 the code system is any short string, matched case-insensitively. */
export const MAX_LEGACY_SERVICE_CODE_SYSTEM_LENGTH = 20;

export class LegacyTemplateSelectionRequest extends TemplateSelectionFields {
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_LEGACY_SERVICE_CODE_SYSTEM_LENGTH)
  serviceCodeSystem!: string;
}

/** Create under 2024-01-01 (decision 18): no policy; one sent anyway is accepted and ignored. */
export class LegacyCreateAuthorizationRequest extends CreateAuthorizationFields {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => LegacyTemplateSelectionRequest)
  templateSelection!: LegacyTemplateSelectionRequest;

  @Allow()
  policy?: unknown;
}

export class PatchAnswersRequest {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => QuestionnaireResponseRequest)
  questionnaireResponse!: QuestionnaireResponseRequest;
}

export class AttachFileRequest {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(MAX_ID_LENGTH) fileId!: string;

  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_DOCUMENT_TYPES)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(100, { each: true })
  documentTypes!: string[];

  @IsOptional() @IsString() @MaxLength(MAX_DESCRIPTION_LENGTH) description?: string | null;
}

/** Decision 7: `{"nextActionId": "..."}`. A missing id is the domain's 409 next_action_required. */
export class ConfirmRequest {
  @IsOptional() @IsString() @MaxLength(MAX_ID_LENGTH) nextActionId?: string | null;
}

export class ListAuthorizationsQuery {
  @IsOptional() @IsIn(AUTHORIZATION_STATUSES, oneOf('status', AUTHORIZATION_STATUSES)) status?: string;
  @IsOptional() @IsString() limit?: string;
  @IsOptional() @IsString() @MaxLength(2048) cursor?: string;
}

// ---- rules across fields ---------------------------------------------------------------------------------

export const ANSWER_VALUE_FIELDS = [
  'valueString',
  'valueBoolean',
  'valueDate',
  'valueDecimal',
  'valueCoding',
  'valueInteger',
  'valueQuantity',
  'valueTime',
  'valueDateTime',
] as const;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Each answer holds exactly one value field; reported at the answer itself. */
function answerIssues(response: unknown, location: string[]): ValidationIssue[] {
  if (!isRecord(response) || !Array.isArray(response.item)) return [];
  const issues: ValidationIssue[] = [];
  response.item.forEach((item, i) => {
    if (!isRecord(item) || !Array.isArray(item.answer)) return;
    item.answer.forEach((answer, j) => {
      if (!isRecord(answer)) return;
      const present = ANSWER_VALUE_FIELDS.filter((field) => answer[field] !== undefined).length;
      if (present !== 1) {
        issues.push({
          errorType: 'value_error',
          location: [...location, 'item', String(i), 'answer', String(j)],
          message: `an answer holds exactly one of ${ANSWER_VALUE_FIELDS.join(', ')}`,
        });
      }
    });
  });
  return issues;
}

export const createAuthorizationIssues = (raw: Record<string, unknown>): ValidationIssue[] =>
  answerIssues(raw.questionnaireResponse, ['body', 'questionnaireResponse']);

export const patchAnswersIssues = createAuthorizationIssues;

// ---- to domain commands ----------------------------------------------------------------------------------

/** The validated DTO as the domain's plain answer: only the one value field, codings reduced to `{code}`. */
function toAnswer(answer: AnswerRequest): Answer {
  if (answer.valueString !== undefined) return { valueString: answer.valueString };
  if (answer.valueBoolean !== undefined) return { valueBoolean: answer.valueBoolean };
  if (answer.valueDate !== undefined) return { valueDate: answer.valueDate };
  if (answer.valueDecimal !== undefined) return { valueDecimal: answer.valueDecimal };
  if (answer.valueInteger !== undefined) return { valueInteger: answer.valueInteger };
  if (answer.valueQuantity !== undefined) {
    const { value, unit, system, code } = answer.valueQuantity;
    return {
      valueQuantity: {
        value,
        ...(unit !== undefined ? { unit } : {}),
        ...(system !== undefined ? { system } : {}),
        ...(code !== undefined ? { code } : {}),
      },
    };
  }
  if (answer.valueTime !== undefined) return { valueTime: answer.valueTime };
  if (answer.valueDateTime !== undefined) return { valueDateTime: answer.valueDateTime };
  return { valueCoding: { code: answer.valueCoding!.code } };
}

export const toResponseItems = (response: QuestionnaireResponseRequest): QuestionnaireResponseItem[] =>
  response.item.map((item) => ({ linkId: item.linkId, answer: item.answer.map(toAnswer) }));

/** The policy the spec requires on create, or null when it is missing (→ 400 final_submission_policy_required). */
export const finalSubmissionPolicyOf = (request: CreateAuthorizationRequest) =>
  request.policy?.finalSubmission ?? null;

/** The legacy free-string code system as one the catalog knows, or null (→ unsupported_template_selection). */
export const knownServiceCodeSystem = (value: string): (typeof SERVICE_CODE_SYSTEMS)[number] | null =>
  SERVICE_CODE_SYSTEMS.find((system) => system === value.toLowerCase()) ?? null;

export function toCreateCommand(
  request: CreateAuthorizationFields & { templateSelection: TemplateSelectionRequest },
  finalSubmission: (typeof FINAL_SUBMISSION_POLICIES)[number],
): CreateAuthorizationCommand {
  const selection = request.templateSelection;
  return {
    providerNpi: request.providerNpi,
    templateSelection: {
      payerId: selection.payerId,
      insuranceState: selection.insuranceState.toUpperCase(),
      serviceType: selection.serviceType,
      serviceCode: selection.serviceCode,
      serviceCodeSystem: selection.serviceCodeSystem,
    },
    policy: { finalSubmission },
    ...(request.portalAuthMode !== undefined ? { portalAuthMode: request.portalAuthMode } : {}),
    ...(request.questionnaireResponse !== undefined
      ? { questionnaireResponse: { item: toResponseItems(request.questionnaireResponse) } }
      : {}),
  };
}
