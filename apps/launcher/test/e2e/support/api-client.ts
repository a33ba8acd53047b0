import { randomUUID } from 'node:crypto';

/*
 * The API as an integrator calls it: fetch, a bearer key, If-Match with the version of the last answer, a fresh
 * Idempotency-Key per command. The shapes below are the parts of the API's documents these tests read.
 */

export interface Answer {
  valueString?: string;
  valueBoolean?: boolean;
  valueDate?: string;
  valueDecimal?: number;
  valueCoding?: { code: string };
}

export interface ResponseItem {
  linkId: string;
  answer: Answer[];
}

export interface NextAction {
  id: string;
  type: 'provide_requirements' | 'advance_case' | 'approve_submission' | 'complete_payer_interaction';
  owner: 'customer' | 'operator';
  authorizationVersion: number;
  reviewSnapshotId: string | null;
  resolution?: { kind: string; reason: string };
}

export interface ReviewSnapshot {
  id: string;
  status: 'current' | 'stale' | 'approved';
  kind: string;
  summary: Record<string, unknown>;
  questionnaireResponse: { item: ResponseItem[] };
  warnings: string[];
}

export interface PayerReceipt {
  receivedAt: string;
  referenceNumber: string;
  channel: string;
  payerStatusText: string | null;
}

export interface PayerDecision {
  receivedAt: string;
  authorizationNumber: string | null;
  payerStatusText: string | null;
  effectiveFrom: string | null;
  effectiveTo: string | null;
  modifications: string[];
  denialReasons: string[];
}

export interface QuestionnaireGroup {
  id: string;
  items: Array<{ linkId: string; answerType: string; required?: boolean }>;
}

export interface Authorization {
  id: string;
  version: number;
  providerNpi: string;
  status: string;
  policy: { finalSubmission: string };
  outcome: string | null;
  questionnaire: QuestionnaireGroup[];
  questionnaireResponse: { item: ResponseItem[] };
  requirements: {
    version: number;
    questions: Array<{ linkId: string; message: string }>;
    documents: Array<{ type: string; message: string }>;
    issues: Array<{ code: string; message: string }>;
  };
  submission: {
    reviewSnapshot: ReviewSnapshot | null;
    payerReceipt: PayerReceipt | null;
    decision: PayerDecision | null;
  };
  attachments: Array<{ id: string; fileId: string; documentTypes: string[] }>;
  nextAction: NextAction | null;
  completedAt: string | null;
  canceledAt: string | null;
}

export interface ManualHandoff {
  manualHandoffId: string;
  state: 'offered' | 'active' | 'closing' | 'closed';
  result: string | null;
  authorization: { id: string; version: number; status: string };
  reconciliation?: { id: string; state: string };
  version: number;
}

export interface ErrorBody {
  error: { code: string; message: string; details: Record<string, unknown> };
}

export interface SandboxScenario {
  scenario: string;
  memberId: string;
  description: string;
}

export interface ApiResponse<T> {
  status: number;
  etag: string | null;
  body: T;
}

interface FileBody {
  id: string;
  status: string;
  uploadUrl: string | null;
}

const AUTHORIZATIONS = '/v1/prior-auth/authorizations';

/** A minimal PDF: completing an upload checks the bytes really are one. */
const PDF_BYTES = Buffer.from(
  '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n',
  'latin1',
);

/** Refuses an answer with another status, showing what the API said instead. */
export function expectStatus<T>(response: ApiResponse<T>, status: number, what: string): ApiResponse<T> {
  if (response.status !== status) {
    throw new Error(
      `${what}: expected HTTP ${status}, got ${response.status}: ${JSON.stringify(response.body)}`,
    );
  }
  return response;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly apiKey: string,
    /** Sent with every request (e.g. a `traceparent`). */
    private readonly extraHeaders: Record<string, string> = {},
  ) {}

  async sandboxScenarios(): Promise<SandboxScenario[]> {
    const response = expectStatus(
      await this.call<{ data: SandboxScenario[] }>('GET', '/v1/sandbox/scenarios'),
      200,
      'list sandbox scenarios',
    );
    return response.body.data;
  }

  create(body: Record<string, unknown>): Promise<ApiResponse<Authorization>> {
    return this.call('POST', AUTHORIZATIONS, { body, idempotencyKey: randomUUID() });
  }

  get(id: string): Promise<ApiResponse<Authorization>> {
    return this.call('GET', `${AUTHORIZATIONS}/${id}`);
  }

  patchAnswers(id: string, version: number, items: ResponseItem[]) {
    return this.call<Authorization | ErrorBody>('PATCH', `${AUTHORIZATIONS}/${id}/answers`, {
      body: { questionnaireResponse: { item: items } },
      ifMatch: version,
    });
  }

  attach(id: string, version: number, fileId: string, documentTypes: string[]) {
    return this.call<Authorization | ErrorBody>('POST', `${AUTHORIZATIONS}/${id}/attachments`, {
      body: { fileId, documentTypes },
      ifMatch: version,
      idempotencyKey: randomUUID(),
    });
  }

  confirm(id: string, version: number, nextActionId: string) {
    return this.call<Authorization | ErrorBody>('POST', `${AUTHORIZATIONS}/${id}/confirm`, {
      body: { nextActionId },
      ifMatch: version,
      idempotencyKey: randomUUID(),
    });
  }

  cancel(id: string, version: number) {
    return this.call<Authorization | ErrorBody>('POST', `${AUTHORIZATIONS}/${id}/cancel`, {
      ifMatch: version,
      idempotencyKey: randomUUID(),
    });
  }

  /** Hands the case's payer interaction to an operator (If-Match: the authorization's version). */
  createHandoff(id: string, version: number) {
    return this.call<ManualHandoff | ErrorBody>('POST', `${AUTHORIZATIONS}/${id}/manual-handoffs`, {
      ifMatch: version,
      idempotencyKey: randomUUID(),
    });
  }

  getHandoff(id: string, handoffId: string) {
    return this.call<ManualHandoff>('GET', `${AUTHORIZATIONS}/${id}/manual-handoffs/${handoffId}`);
  }

  createHandoffGrant(id: string, handoffId: string) {
    return this.call<{ id: string; url: string; expiresAt: string } | ErrorBody>(
      'POST',
      `${AUTHORIZATIONS}/${id}/manual-handoffs/${handoffId}/access-grants`,
      { idempotencyKey: randomUUID() },
    );
  }

  /** The operator's claim (If-Match: the handoff's own version). */
  completeHandoff(id: string, handoffId: string, version: number, body: Record<string, unknown>) {
    return this.call<ManualHandoff | ErrorBody>(
      'POST',
      `${AUTHORIZATIONS}/${id}/manual-handoffs/${handoffId}/complete`,
      { body, ifMatch: version, idempotencyKey: randomUUID() },
    );
  }

  /** The three-step upload of the files API: create, PUT the bytes to the signed URL, complete. */
  async uploadPdf(fileName: string): Promise<string> {
    const created = expectStatus(
      await this.call<FileBody>('POST', '/v1/files', {
        body: {
          fileName,
          contentType: 'application/pdf',
          sizeBytes: PDF_BYTES.length,
          purpose: 'authorization_attachment',
        },
      }),
      201,
      'create a file',
    ).body;
    // The upload URL is a capability of its own: no API key goes with it.
    const put = await fetch(created.uploadUrl!, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/pdf' },
      body: PDF_BYTES,
    });
    if (put.status !== 200) throw new Error(`upload answered ${put.status}: ${await put.text()}`);
    const completed = expectStatus(
      await this.call<FileBody>('POST', `/v1/files/${created.id}/complete`),
      200,
      'complete the upload',
    ).body;
    if (completed.status !== 'ready') throw new Error(`file ${created.id} is ${completed.status}, not ready`);
    return created.id;
  }

  private async call<T>(
    method: string,
    path: string,
    options: { body?: unknown; ifMatch?: number; idempotencyKey?: string } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...this.extraHeaders, Authorization: `Bearer ${this.apiKey}` };
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    if (options.ifMatch !== undefined) headers['If-Match'] = `"${options.ifMatch}"`;
    if (options.idempotencyKey !== undefined) headers['Idempotency-Key'] = options.idempotencyKey;
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
    const text = await response.text();
    return {
      status: response.status,
      etag: response.headers.get('etag'),
      body: (text === '' ? null : JSON.parse(text)) as T,
    };
  }
}
