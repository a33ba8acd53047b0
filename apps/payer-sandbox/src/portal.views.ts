import { PORTAL_QUESTION, REQUESTED_DOCUMENT } from './website-scenarios';
import { type RequestStatus } from './request-decision';
import { type Draft, type RequestRow } from './sandbox-store';

/** Escapes text for HTML content and attribute values. */
export const esc = (value: unknown): string =>
  String(value ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** Page markup knobs: `redesigned` renames the sign-in fields, as a payer's redesign would (tests only). */
export interface ViewOptions {
  redesigned: boolean;
}

const STYLE = `body{font-family:Arial,sans-serif;margin:0;background:#f4f6f8;color:#1d2733}
header{background:#0b4f8a;color:#fff;padding:12px 24px}main{max-width:760px;margin:24px auto;background:#fff;padding:24px;border-radius:6px}
label{display:block;margin-top:12px;font-weight:bold}input,select,textarea{padding:6px;width:100%;box-sizing:border-box}
button{margin-top:16px;padding:8px 16px;background:#0b4f8a;color:#fff;border:0;border-radius:4px}
.alert-error{background:#fdecea;color:#8a1c12;padding:12px;border-radius:4px}.field-error{color:#8a1c12;font-size:13px}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #dde;padding:6px;text-align:left}`;

export function layout(page: string, title: string, body: string, signedIn = false): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)} – Sandbox Health Plan</title>
<style>${STYLE}</style></head><body data-page="${esc(page)}"><header><strong>Sandbox Health Plan</strong> · Provider Portal${
    signedIn
      ? ' · <a style="color:#fff" href="/requests">Requests</a> · <form style="display:inline" method="post" action="/sign-out"><button id="sign-out" style="margin:0;padding:2px 8px">Sign out</button></form>'
      : ''
  }</header><main><h1>${esc(title)}</h1>${body}</main></body></html>`;
}

const alert = (code: string, message: string) =>
  `<div class="alert-error" role="alert" data-error="${esc(code)}">${esc(message)}</div>`;

export function signInPage(
  view: ViewOptions,
  error?: { code: string; message: string },
  notice?: string,
): string {
  const [user, pass, button] = view.redesigned
    ? ['user-id', 'passphrase', 'log-in']
    : ['username', 'password', 'sign-in'];
  return layout(
    'sign-in',
    'Sign in',
    `${notice ? `<p class="notice" data-notice="session-expired">${esc(notice)}</p>` : ''}${
      error ? alert(error.code, error.message) : ''
    }<form method="post" action="/sign-in"><label for="${user}">Username</label><input id="${user}" name="username" autocomplete="username">
<label for="${pass}">Password</label><input id="${pass}" name="password" type="password" autocomplete="current-password">
<button id="${button}" type="submit">Sign in</button></form>`,
  );
}

export function lockedPage(): string {
  return layout(
    'account-locked',
    'Account locked',
    alert(
      'account-locked',
      'Your account has been locked. Contact provider services at the number on the back of the member card to unlock it.',
    ),
  );
}

export function verifyPage(error?: { code: string; message: string }): string {
  return layout(
    'verify-code',
    'Two-step verification',
    `${error ? alert(error.code, error.message) : ''}<p>Enter the 6-digit code from your authenticator app.</p>
<form method="post" action="/sign-in/verify"><label for="code">Verification code</label><input id="code" name="code" inputmode="numeric" maxlength="6" autocomplete="one-time-code">
<button id="verify" type="submit">Verify</button></form>`,
  );
}

export function providerPage(error?: string): string {
  return layout(
    'choose-provider',
    'Choose a provider',
    `${error ? alert('invalid-npi', error) : ''}<form method="post" action="/providers"><label for="provider-npi">Provider NPI</label>
<input id="provider-npi" name="npi" inputmode="numeric" maxlength="10"><button id="choose-provider" type="submit">Continue</button></form>`,
    true,
  );
}

export function memberSearchPage(
  npi: string,
  errors: Record<string, string> = {},
  values: Record<string, string> = {},
): string {
  return layout(
    'member-search',
    'Find a member',
    `<p>Provider NPI <span id="current-npi">${esc(npi)}</span></p><form method="post" action="/members">
<label for="member-id">Member ID</label><input id="member-id" name="memberId" value="${esc(values.memberId)}">${fieldError('memberId', errors)}
<label for="birth-date">Date of birth</label><input id="birth-date" name="birthDate" type="date" value="${esc(values.birthDate)}">${fieldError('birthDate', errors)}
<button id="find-member" type="submit">Search</button></form>`,
    true,
  );
}

export function memberNotFoundPage(memberId: string): string {
  return layout(
    'member-not-found',
    'Member not found',
    `${alert('member-not-found', `We could not find an eligible member with ID ${memberId} and that date of birth.`)}<p><a id="search-again" href="/members">Search again</a></p>`,
    true,
  );
}

export function memberPage(draft: Draft): string {
  return layout(
    'member-summary',
    'Member eligibility',
    `<p>Member <strong id="member-id-found">${esc(draft.memberId)}</strong>, born ${esc(draft.birthDate)}: coverage active.</p>
<form method="post" action="/requests/new"><button id="start-request" type="submit">Start a prior authorization request</button></form>`,
    true,
  );
}

const fieldError = (name: string, errors: Record<string, string>) =>
  errors[name] ? `<div class="field-error" data-for="${esc(name)}">${esc(errors[name])}</div>` : '';

export function serviceStepPage(
  draft: Draft,
  errors: Record<string, string> = {},
  values: Record<string, string> = {},
): string {
  const extra =
    draft.scenario === 'portal_question'
      ? `<label for="portal-question">${esc(PORTAL_QUESTION.text)}</label><input id="portal-question" name="${esc(PORTAL_QUESTION.linkId)}" type="date" required
 data-link-id="${esc(PORTAL_QUESTION.linkId)}" data-answer-type="date" min="${PORTAL_QUESTION.min}" max="${PORTAL_QUESTION.max}" value="${esc(values[PORTAL_QUESTION.linkId])}">${fieldError(PORTAL_QUESTION.linkId, errors)}`
      : '';
  const input = (id: string, name: string, label: string, type = 'text') =>
    `<label for="${id}">${label}</label><input id="${id}" name="${name}" type="${type}" value="${esc(values[name])}">${fieldError(name, errors)}`;
  return layout(
    'request-service',
    'Request: service details (step 1 of 4)',
    `${Object.keys(errors).length > 0 ? alert('validation', 'Please correct the highlighted fields.') : ''}<form method="post" action="/requests/draft/service" novalidate>
${input('external-reference', 'externalReference', 'Your reference (tracking number)')}
${input('service-code', 'serviceCode', 'Service code (CPT/HCPCS)')}
${input('diagnosis-code', 'diagnosisCode', 'Primary diagnosis (ICD-10)')}
${input('start-date', 'startDate', 'Requested start date', 'date')}
${input('end-date', 'endDate', 'Requested end date', 'date')}
${extra}<button id="continue" type="submit">Continue</button></form>`,
    true,
  );
}

export function clinicalStepPage(errors: Record<string, string> = {}, value = ''): string {
  return layout(
    'request-clinical',
    'Request: clinical information (step 2 of 4)',
    `<form method="post" action="/requests/draft/clinical"><label for="clinical-answers">Answers to the clinical questionnaire</label>
<textarea id="clinical-answers" name="clinical" rows="10">${esc(value)}</textarea>${fieldError('clinical', errors)}
<button id="continue" type="submit">Continue</button></form>`,
    true,
  );
}

export function documentsStepPage(draft: Draft, error?: string): string {
  const rows = (draft.documents ?? [])
    .map(
      (d) =>
        `<li data-document-type="${esc(d.documentType)}">${esc(d.name)} (${esc(d.contentType)}, ${d.size} bytes)</li>`,
    )
    .join('');
  return layout(
    'request-documents',
    'Request: supporting documents (step 3 of 4)',
    `${error ? alert('upload-refused', error) : ''}<ul id="uploaded-documents">${rows}</ul>
<form method="post" action="/requests/draft/documents" enctype="multipart/form-data">
<label for="document-type">Document type</label><select id="document-type" name="documentType">
<option value="clinical_notes">Clinical notes</option><option value="imaging_report">Imaging report</option>
<option value="${REQUESTED_DOCUMENT.type}">${REQUESTED_DOCUMENT.label}</option><option value="other">Other</option></select>
<label for="document-file">File (PDF, PNG or JPEG, up to 10 MB)</label><input id="document-file" name="file" type="file">
<button id="upload-document" type="submit">Upload</button></form>
<form method="get" action="/requests/draft/review"><button id="continue-to-review" type="submit">Continue to review</button></form>`,
    true,
  );
}

export function reviewPage(draft: Draft, humanCheck: boolean, error?: string): string {
  const service = draft.service ?? {};
  const check = humanCheck
    ? `<fieldset id="human-check" data-human-check="true"><legend>Security check</legend>
<p>To protect member data, confirm you are a person: type the words shown in the picture.</p>
<svg width="220" height="50" role="img" aria-label="distorted words"><text x="10" y="35" font-size="26" transform="skewX(-18)" fill="#556">${esc('verify human')}</text></svg>
<label for="human-answer">Words in the picture</label><input id="human-answer" name="humanAnswer" autocomplete="off"></fieldset>`
    : '';
  return layout(
    'request-review',
    'Request: review and submit (step 4 of 4)',
    `${error ? alert('submit-refused', error) : ''}<table id="review">
<tr><th>Your reference</th><td>${esc(service.externalReference)}</td></tr>
<tr><th>Provider NPI</th><td>${esc(draft.providerNpi)}</td></tr>
<tr><th>Member ID</th><td>${esc(draft.memberId)}</td></tr>
<tr><th>Service code</th><td>${esc(service.serviceCode)}</td></tr>
<tr><th>Diagnosis</th><td>${esc(service.diagnosisCode)}</td></tr>
<tr><th>Dates</th><td>${esc(service.startDate)} – ${esc(service.endDate)}</td></tr>
<tr><th>Documents</th><td>${(draft.documents ?? []).map((d) => esc(d.name)).join(', ') || 'none'}</td></tr></table>
<form method="post" action="/requests/draft/submit">${check}<button id="submit-request" type="submit">Submit request</button></form>`,
    true,
  );
}

export function rejectedPage(reason: string): string {
  return layout('submission-rejected', 'Submission rejected', alert('submission-rejected', reason), true);
}

export function confirmationPage(request: RequestRow): string {
  return layout(
    'confirmation',
    'Request received',
    `<p>Thank you. Your prior authorization request was received.</p>
<p>Reference number: <strong id="reference-number">${esc(request.referenceNumber)}</strong></p>
<p>Received: <time id="received-at" datetime="${request.receivedAt.toISOString()}">${esc(request.receivedAt.toUTCString())}</time></p>
<p>Your reference: <span id="external-reference">${esc(request.externalKey)}</span></p>
<p><a id="view-status" href="/requests/${esc(request.referenceNumber)}">View status</a></p>`,
    true,
  );
}

export function searchPage(key: string, results: RequestRow[]): string {
  const rows = results
    .map(
      (r) =>
        `<tr data-reference="${esc(r.referenceNumber)}" data-received-at="${r.receivedAt.toISOString()}"><td><a href="/requests/${esc(r.referenceNumber)}">${esc(r.referenceNumber)}</a></td><td>${esc(r.memberId)}</td><td>${esc(r.receivedAt.toUTCString())}</td></tr>`,
    )
    .join('');
  return layout(
    'request-search',
    'Your requests',
    `<form method="get" action="/requests"><label for="search-key">Your reference</label><input id="search-key" name="key" value="${esc(key)}">
<button id="search" type="submit">Search</button></form>${
      key
        ? `<table id="search-results"><tr><th>Reference</th><th>Member</th><th>Received</th></tr>${rows}</table><p id="result-count">${results.length} found</p>`
        : ''
    }`,
    true,
  );
}

export function statusPage(request: RequestRow, status: RequestStatus): string {
  let body = `<p>Reference number <strong id="reference-number">${esc(request.referenceNumber)}</strong>, received <time id="received-at" datetime="${request.receivedAt.toISOString()}">${esc(request.receivedAt.toUTCString())}</time></p>`;
  if (status.status === 'pending') {
    body += `<p>Status: <strong id="status" data-status="pending">In review</strong></p>`;
  } else if (status.status === 'more_information') {
    body += `<p>Status: <strong id="status" data-status="more_information">More information requested</strong></p><p>Please submit a new request with:</p><ul id="requested-documents">${status.documents
      .map((d) => `<li data-document-type="${esc(d.type)}">${esc(d.label)}</li>`)
      .join('')}</ul>`;
  } else {
    body += `<p>Status: <strong id="status" data-status="${status.status}" data-decided-at="${status.decidedAt.toISOString()}">${esc(status.statusText)}</strong></p>`;
    if (status.authorizationNumber)
      body += `<p>Authorization number: <strong id="authorization-number">${esc(status.authorizationNumber)}</strong></p>`;
    if (status.effectiveFrom)
      body += `<p>Valid <span id="effective-from">${esc(status.effectiveFrom)}</span> to <span id="effective-to">${esc(status.effectiveTo)}</span></p>`;
    if (status.denialReasons.length > 0)
      body += `<ul id="denial-reasons">${status.denialReasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>`;
    if (status.modifications.length > 0)
      body += `<ul id="modifications">${status.modifications.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>`;
    body += `<p><a id="download-letter" href="/requests/${esc(request.referenceNumber)}/letter.pdf" download>Download decision letter (PDF)</a></p>`;
  }
  return layout('request-status', 'Request status', body, true);
}

export function unavailablePage(): string {
  return layout(
    'unavailable',
    'Service temporarily unavailable',
    alert(
      'unavailable',
      'The provider portal is temporarily unavailable for maintenance. Please try again later.',
    ),
  );
}

export function notFoundPage(): string {
  return layout('not-found', 'Page not found', alert('not-found', 'The page you requested does not exist.'));
}
