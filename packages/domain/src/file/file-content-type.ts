/**
 * What a file may contain. Limits are part of the public contract (decision 14: "maximum size documented and
 * enforced"), so they live here once and the API, the blob store and the docs read them from this module.
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

export const FILE_PURPOSES = ['authorization_attachment'] as const;
export type FilePurpose = (typeof FILE_PURPOSES)[number];

export const isAllowedFileContentType = (value: string): value is FileContentType =>
  (ALLOWED_FILE_CONTENT_TYPES as readonly string[]).includes(value);

export const isFilePurpose = (value: string): value is FilePurpose =>
  (FILE_PURPOSES as readonly string[]).includes(value);
