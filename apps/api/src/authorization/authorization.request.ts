import {
  AUTHORIZATION_STATUSES,
  FINAL_SUBMISSION_POLICIES,
  MAX_ANSWER_STRING_LENGTH,
  MAX_ANSWERS_PER_ITEM,
  MAX_DATE_TEXT_LENGTH,
  MAX_DATE_TIME_TEXT_LENGTH,
  MAX_DESCRIPTION_LENGTH,
  MAX_DOCUMENT_TYPE_LENGTH,
  MAX_DOCUMENT_TYPES,
  MAX_GROUP_INSTANCES,
  MAX_ID_LENGTH,
  MAX_LINK_ID_LENGTH,
  MAX_RESPONSE_ITEMS,
  MAX_SERVICE_CODE_LENGTH,
  PORTAL_AUTH_MODES,
  SERVICE_CODE_SYSTEMS,
  SERVICE_TYPES,
  type Answer,
  type CreateAuthorizationCommand,
  type FinalSubmissionPolicy,
  type PortalAuthMode,
  type QuestionnaireResponseItem,
  type ServiceCodeSystem,
  type ServiceType,
} from '@prior-auth/domain';
import { Type } from 'class-transformer';
import { JSONSchema } from 'class-validator-jsonschema';
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
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { LEGACY_API_VERSION } from '@prior-auth/platform';
import { Doc, DocRequired, OptionalText } from '../openapi/request-schema';
import type { ValidationIssue } from '../http/http-error';
import { PageQuery } from '../http/pagination';
import { oneOf, ValidateNestedEach } from '../http/validation';

/*
 * Request bodies of the authorization endpoints. Every string has a length cap and every array a size cap (the
 * domain's input limits, also stated by the OpenAPI document), so an oversized value is a 422 at its field
 * rather than a row or a requirements evaluation of arbitrary size. Unknown fields are refused by
 * `validateInput` (whitelist + forbidNonWhitelisted).
 */

/** Optional, but `null` is not "absent": it is validated (and refused) like any other wrong value. */
const IsOptionalNotNull = () => ValidateIf((_object, value) => value !== undefined);

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

/*
 * Prose the OpenAPI document gives both a request field and the response field it becomes (one text each).
 */
export const TEMPLATE_SELECTION_DOCS = {
  selection: 'The pinned route: payer, state, service type and service code.',
  payerId: 'Canonical payer ID.',
  serviceCode: 'A HCPCS, CPT or NDC code.',
} as const;

export const ANSWER_DOCS = {
  answer: `Exactly one of ${ANSWER_VALUE_FIELDS.map((field) => `\`${field}\``).join(', ')}.`,
  valueDate: 'A calendar date `YYYY-MM-DD`; an invalid date is a requirement issue, not a 422.',
  valueInteger: 'A whole number, for `decimal` items of `valueType` `integer`.',
  valueQuantity: 'For `decimal` items of `valueType` `quantity`; the unit must be among the item’s `units`.',
  valueTime: '`hh:mm[:ss]`, for `string` items of `valueType` `time`.',
  valueDateTime: 'ISO 8601 date-time, for `date` items of `valueType` `dateTime`.',
  instance:
    'For a question inside a repeating group (`repeatingGroup` on the item): which instance of the group, from 0; ' +
    'absent means 0.',
} as const;

/** The fields both API versions validate alike; each version's class adds `serviceCodeSystem`. */
export class TemplateSelectionFields {
  @Doc(TEMPLATE_SELECTION_DOCS.payerId)
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_ID_LENGTH)
  payerId!: string;

  @Doc('Two-letter state code (stored upper-case).')
  @IsDefined()
  @IsString()
  @Matches(/^[A-Za-z]{2}$/, { message: 'insuranceState must be a two-letter state code' })
  insuranceState!: string;

  @IsDefined()
  @IsIn(SERVICE_TYPES, oneOf('serviceType', SERVICE_TYPES))
  serviceType!: ServiceType;

  @Doc(TEMPLATE_SELECTION_DOCS.serviceCode)
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_SERVICE_CODE_LENGTH)
  serviceCode!: string;
}

@Doc(TEMPLATE_SELECTION_DOCS.selection)
export class TemplateSelectionRequest extends TemplateSelectionFields {
  @IsDefined()
  @IsIn(SERVICE_CODE_SYSTEMS, oneOf('serviceCodeSystem', SERVICE_CODE_SYSTEMS))
  serviceCodeSystem!: ServiceCodeSystem;
}

/**
 * `finalSubmission` may be absent here: a missing policy or policy.finalSubmission is the spec's
 * `400 final_submission_policy_required`, decided after validation (see `finalSubmissionPolicyOf`). A present
 * but unknown value is a 422 like any other enum. The document lists it as required, as the contract does.
 */
@DocRequired('finalSubmission')
export class PolicyRequest {
  @IsOptional()
  @IsIn(FINAL_SUBMISSION_POLICIES, oneOf('finalSubmission', FINAL_SUBMISSION_POLICIES))
  finalSubmission?: FinalSubmissionPolicy | null;
}

export class CodingRequest {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(MAX_LINK_ID_LENGTH) code!: string;
}

/** A FHIR Quantity answer: the unit is checked against the item's `units` by the requirements engine. */
@Doc(ANSWER_DOCS.valueQuantity)
export class QuantityRequest {
  @IsDefined() @IsNumber({ allowNaN: false, allowInfinity: false }) value!: number;
  @IsOptionalNotNull() @IsString() @IsNotEmpty() @MaxLength(MAX_LINK_ID_LENGTH) unit?: string;
  @IsOptionalNotNull() @IsString() @IsNotEmpty() @MaxLength(MAX_ANSWER_STRING_LENGTH) system?: string;
  @IsOptionalNotNull() @IsString() @IsNotEmpty() @MaxLength(MAX_LINK_ID_LENGTH) code?: string;
}

/**
 * Exactly one value field is set; that rule spans fields, so `answerIssues` checks it (the document states it
 * as one property at least and at most).
 */
@JSONSchema({ minProperties: 1, maxProperties: 1, description: ANSWER_DOCS.answer })
export class AnswerRequest {
  @IsOptionalNotNull() @IsString() @MaxLength(MAX_ANSWER_STRING_LENGTH) valueString?: string;
  @IsOptionalNotNull() @IsBoolean() valueBoolean?: boolean;
  /** Calendar validity is the requirements engine's job (`invalid_date` issue), like every answer rule. */
  @Doc(ANSWER_DOCS.valueDate)
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(MAX_DATE_TEXT_LENGTH)
  valueDate?: string;
  @IsOptionalNotNull() @IsNumber({ allowNaN: false, allowInfinity: false }) valueDecimal?: number;

  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => CodingRequest)
  valueCoding?: CodingRequest;

  /** Whole-number and measured answers of `decimal` items whose `valueType` says so (docs/decisions/0018). */
  @Doc(ANSWER_DOCS.valueInteger) @IsOptionalNotNull() @IsInt() valueInteger?: number;

  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => QuantityRequest)
  valueQuantity?: QuantityRequest;

  /** Format checks (`hh:mm[:ss]`, ISO 8601 date-time) are the requirements engine's, like `valueDate`. */
  @Doc(ANSWER_DOCS.valueTime)
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(MAX_DATE_TEXT_LENGTH)
  valueTime?: string;

  @Doc(ANSWER_DOCS.valueDateTime)
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(MAX_DATE_TIME_TEXT_LENGTH)
  valueDateTime?: string;
}

export class QuestionnaireResponseItemRequest {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(MAX_LINK_ID_LENGTH) linkId!: string;

  /** The repeating-group instance of a question inside a repeating group (decision 0036); absent is 0. */
  @Doc(ANSWER_DOCS.instance)
  @IsOptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(MAX_GROUP_INSTANCES - 1)
  instance?: number;

  /** An empty array clears the item's answers (decision 0028). */
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(MAX_ANSWERS_PER_ITEM)
  @ValidateNestedEach(() => AnswerRequest)
  answer!: AnswerRequest[];
}

@Doc(
  'Answers by linkId (and `instance` inside a repeating group). On patch, each item sent replaces that ' +
    'item’s answers in that instance; an empty `answer` clears it.',
)
export class QuestionnaireResponseRequest {
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(MAX_RESPONSE_ITEMS)
  @ValidateNestedEach(() => QuestionnaireResponseItemRequest)
  item!: QuestionnaireResponseItemRequest[];
}

/** The create fields both API versions validate alike; each version's class adds the rest. */
export class CreateAuthorizationFields {
  @Doc('A provider NPI registered to the organization.')
  @IsDefined()
  @IsString()
  @Matches(/^\d{10}$/, { message: 'providerNpi must be a 10-digit NPI' })
  providerNpi!: string;

  @Doc('For routes that support several modes.')
  @IsOptionalNotNull()
  @IsIn(PORTAL_AUTH_MODES, oneOf('portalAuthMode', PORTAL_AUTH_MODES))
  portalAuthMode?: PortalAuthMode;

  @Doc('Initial answers, merged before the case is created.')
  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => QuestionnaireResponseRequest)
  questionnaireResponse?: QuestionnaireResponseRequest;
}

/** `policy` is required by the contract; its absence is the domain's 400 (see `PolicyRequest`). */
@DocRequired('policy')
export class CreateAuthorizationRequest extends CreateAuthorizationFields {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => TemplateSelectionRequest)
  templateSelection!: TemplateSelectionRequest;

  @Doc('Required; missing → 400 final_submission_policy_required.')
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PolicyRequest)
  policy?: PolicyRequest | null;
}

/** Decision 0029: under 2024-01-01 the code system is any short string, matched case-insensitively. */
export const MAX_LEGACY_SERVICE_CODE_SYSTEM_LENGTH = 20;

@Doc(TEMPLATE_SELECTION_DOCS.selection)
export class LegacyTemplateSelectionRequest extends TemplateSelectionFields {
  @Doc(
    `Matched case-insensitively to ${SERVICE_CODE_SYSTEMS.join(', ')}; anything else → 409 ` +
      'unsupported_template_selection.',
  )
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_LEGACY_SERVICE_CODE_SYSTEM_LENGTH)
  serviceCodeSystem!: string;
}

/** Create under 2024-01-01 (decision 0029): no policy; one sent anyway is accepted and ignored. */
@Doc(`Create under ${LEGACY_API_VERSION}: no policy, Idempotency-Key optional.`)
export class LegacyCreateAuthorizationRequest extends CreateAuthorizationFields {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => LegacyTemplateSelectionRequest)
  templateSelection!: LegacyTemplateSelectionRequest;

  @JSONSchema({
    type: 'object',
    additionalProperties: true,
    description: 'Ignored: the case gets policy `automatic`.',
  })
  @Allow()
  @IsOptional()
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
  @Doc('A ready file of the organization.')
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_ID_LENGTH)
  fileId!: string;

  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_DOCUMENT_TYPES)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(MAX_DOCUMENT_TYPE_LENGTH, { each: true })
  @Doc('Every requirement type the file satisfies.')
  documentTypes!: string[];

  @OptionalText(MAX_DESCRIPTION_LENGTH) description?: string | null;
}

/** Decision 0023: `{"nextActionId": "..."}`. A missing id is the domain's 409 next_action_required. */
export class ConfirmRequest {
  @OptionalText(MAX_ID_LENGTH, 'The current confirmable nextAction.id; missing → 409 next_action_required.')
  nextActionId?: string | null;
}

export const BOOLEAN_QUERY_VALUES = ['true', 'false'] as const;

export class ListAuthorizationsQuery extends PageQuery {
  @Doc('Only authorizations in this status.')
  @IsOptional()
  @IsIn(AUTHORIZATION_STATUSES, oneOf('status', AUTHORIZATION_STATUSES))
  status?: string;

  @Doc('`true`: only cases still `waiting_on_payer` past `submission.decisionDueAt`.')
  @IsOptional()
  @IsIn(BOOLEAN_QUERY_VALUES, oneOf('overdue', BOOLEAN_QUERY_VALUES))
  overdue?: string;
}

// ---- rules across fields ---------------------------------------------------------------------------------

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
  response.item.map((item) => ({
    linkId: item.linkId,
    ...(item.instance === undefined ? {} : { instance: item.instance }),
    answer: item.answer.map(toAnswer),
  }));

/** The policy the spec requires on create, or null when it is missing (→ 400 final_submission_policy_required). */
export const finalSubmissionPolicyOf = (request: CreateAuthorizationRequest) =>
  request.policy?.finalSubmission ?? null;

/** The legacy free-string code system as one the catalog knows, or null (→ unsupported_template_selection). */
export const knownServiceCodeSystem = (value: string): ServiceCodeSystem | null =>
  SERVICE_CODE_SYSTEMS.find((system) => system === value.toLowerCase()) ?? null;

export function toCreateCommand(
  request: CreateAuthorizationFields & { templateSelection: TemplateSelectionRequest },
  finalSubmission: FinalSubmissionPolicy,
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
