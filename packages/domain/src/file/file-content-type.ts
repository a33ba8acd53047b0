/**
 * What a file may contain. Limits are part of the public contract (decision 0027: "maximum size documented
 * and enforced"), so they live here once and the API, the blob store and the docs read them from this module.
 */
export const ALLOWED_FILE_CONTENT_TYPES = [
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/tiff',
] as const;
export type FileContentType = (typeof ALLOWED_FILE_CONTENT_TYPES)[number];

/** 25 MiB: comfortably above scanned clinical notes and imaging reports, below what portals accept. */
export const MAX_FILE_SIZE_BYTES = 25 * 1024 * 1024;

/**
 * `payer_evidence` files are what a payer portal showed (decision 0020): the service creates them, ready, from
 * bytes it captured; a client can read them but never create one. `submission_preview` files are the PDF of a
 * case's submission packet the service renders (decision 0032), service-created the same way.
 */
export const FILE_PURPOSES = ['authorization_attachment', 'payer_evidence', 'submission_preview'] as const;
export type FilePurpose = (typeof FILE_PURPOSES)[number];

/** The purposes `POST /v1/files` accepts. */
export const CLIENT_FILE_PURPOSES = ['authorization_attachment'] as const satisfies readonly FilePurpose[];

/**
 * What payer evidence may be: the uploadable types plus the confirmation page's HTML, which is kept as the
 * portal sent it (downloads serve it as an attachment of unknown type, never as a page of this service).
 */
export const PAYER_EVIDENCE_CONTENT_TYPES = [...ALLOWED_FILE_CONTENT_TYPES, 'text/html'] as const;
export type StoredFileContentType = (typeof PAYER_EVIDENCE_CONTENT_TYPES)[number];

export const isAllowedFileContentType = (value: string): value is FileContentType =>
  (ALLOWED_FILE_CONTENT_TYPES as readonly string[]).includes(value);

export const isFilePurpose = (value: string): value is FilePurpose =>
  (FILE_PURPOSES as readonly string[]).includes(value);

export const isClientFilePurpose = (value: string): boolean =>
  (CLIENT_FILE_PURPOSES as readonly string[]).includes(value);

export const isPayerEvidenceContentType = (value: string): value is StoredFileContentType =>
  (PAYER_EVIDENCE_CONTENT_TYPES as readonly string[]).includes(value);
