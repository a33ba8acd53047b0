import { type BlobStore } from '@prior-auth/domain';
import { type WorkerLogger } from '../../src/worker';

/** The bytes every "uploaded" file holds: the start of a PDF. */
export const PDF_BYTES = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x2e, 0x37, 0x0a, 0x25]);

/** Every object was uploaded and is a small PDF. */
export const pdfBlobStore: BlobStore = {
  createUploadTarget: async (key) => ({ url: `https://uploads.test/${key}` }),
  createDownloadUrl: async (key) => `https://downloads.test/${key}`,
  stat: async () => ({ sizeBytes: PDF_BYTES.length }),
  readHead: async () => PDF_BYTES,
  checksumSha256: async () => 'ab'.repeat(32),
  promote: async () => undefined,
  // The customer side only uploads; what the worker keeps goes to the harness's real store.
  put: () => Promise.reject(new Error('this fake keeps no bytes')),
  delete: async () => undefined,
};

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  details: Record<string, unknown>;
}

/** Keeps what the worker logs, for assertions. */
export class MemoryLogger implements WorkerLogger {
  readonly entries: LogEntry[] = [];

  debug(details: object, message: string): void {
    this.push('debug', details, message);
  }
  info(details: object, message: string): void {
    this.push('info', details, message);
  }
  warn(details: object, message: string): void {
    this.push('warn', details, message);
  }
  error(details: object, message: string): void {
    this.push('error', details, message);
  }

  messages(level?: LogEntry['level']): string[] {
    return this.entries.filter((e) => level === undefined || e.level === level).map((e) => e.message);
  }

  private push(level: LogEntry['level'], details: object, message: string): void {
    this.entries.push({ level, message, details: { ...details } });
  }
}
