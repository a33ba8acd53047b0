import { ALL_EVENTS, MAX_WEBHOOK_URL_LENGTH, RESOURCE_EVENT_TYPES } from '@prior-auth/domain';
import { API_VERSIONS, type ApiVersion } from '@prior-auth/platform';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { PageQuery } from '../http/pagination';

export const SUBSCRIBABLE_EVENTS = [ALL_EVENTS, ...RESOURCE_EVENT_TYPES] as const;
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 500;

const apiVersionMessage = { message: `apiVersion must be one of ${API_VERSIONS.join(', ')}` };

const eventsMessage = {
  each: true,
  message: `enabledEvents must each be one of ${SUBSCRIBABLE_EVENTS.join(', ')}`,
};

const URL_DOC = {
  description:
    'Production: `https`, and the host must not resolve to loopback, private or link-local addresses ' +
    '(→ 422 webhook_url_not_allowed). Sandbox: `http` or `https`, `localhost` allowed.',
};
const EVENTS_DOC = { description: 'Event types sent to the endpoint; `["*"]` for all.' };
/** `@IsOptional` lets `null` through: said so in the schema. */
const NULLABLE_STRING: Parameters<typeof JSONSchema>[0] = { type: ['string', 'null'] };

/*
 * The request classes are the one source of the request bodies' shapes: the OpenAPI document generates its
 * schemas from them (docs/decisions/0037-webhook-versions-attempts-and-request-schemas.md).
 */

export class CreateWebhookEndpointRequest {
  @JSONSchema(URL_DOC) @IsDefined() @IsString() @MaxLength(MAX_WEBHOOK_URL_LENGTH) url!: string;

  @IsDefined()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(SUBSCRIBABLE_EVENTS.length)
  @IsIn(SUBSCRIBABLE_EVENTS, eventsMessage)
  @JSONSchema(EVENTS_DOC)
  enabledEvents!: string[];

  @JSONSchema(NULLABLE_STRING)
  @IsOptional()
  @IsString()
  @MaxLength(MAX_WEBHOOK_DESCRIPTION_LENGTH)
  description?: string | null;

  /** Absent: the request's own version (its header, else its key's pinned version). */
  @JSONSchema({
    description:
      'The API version deliveries are rendered in; absent: the version of this request (its ' +
      '`Prior-Auth-Version` header, else the version pinned on the API key).',
  })
  @ValidateIf((_o, v) => v !== undefined)
  @IsIn(API_VERSIONS, apiVersionMessage)
  apiVersion?: ApiVersion;
}

export class UpdateWebhookEndpointRequest {
  @JSONSchema(URL_DOC)
  @ValidateIf((_o, v) => v !== undefined)
  @IsString()
  @MaxLength(MAX_WEBHOOK_URL_LENGTH)
  url?: string;

  @ValidateIf((_o, v) => v !== undefined)
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(SUBSCRIBABLE_EVENTS.length)
  @IsIn(SUBSCRIBABLE_EVENTS, eventsMessage)
  @JSONSchema(EVENTS_DOC)
  enabledEvents?: string[];

  @JSONSchema({ description: 'A disabled endpoint receives nothing.' })
  @ValidateIf((_o, v) => v !== undefined)
  @IsBoolean()
  disabled?: boolean;

  @JSONSchema(NULLABLE_STRING)
  @IsOptional()
  @IsString()
  @MaxLength(MAX_WEBHOOK_DESCRIPTION_LENGTH)
  description?: string | null;

  @JSONSchema({ description: 'The API version later deliveries are rendered in.' })
  @ValidateIf((_o, v) => v !== undefined)
  @IsIn(API_VERSIONS, apiVersionMessage)
  apiVersion?: ApiVersion;
}

/** A page of endpoints, or of one endpoint's deliveries: no filter. */
export class ListWebhookEndpointsQuery extends PageQuery {}
