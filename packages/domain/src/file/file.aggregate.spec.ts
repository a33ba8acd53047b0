import { DomainError } from '../shared/domain-error';
import {
  FILE_UPLOAD_WINDOW_MS,
  File,
  type CreateFileInput,
  type FileContext,
  type StoredUpload,
} from './file.aggregate';
import { MAX_FILE_SIZE_BYTES } from './file-content-type';

const NOW = new Date('2026-03-02T09:00:00.000Z');
const LATER = new Date('2026-03-02T09:05:00.000Z');

const ctx = (): FileContext => ({ now: new Date(NOW), newId: (prefix) => `${prefix}_1` });

const input = (overrides: Partial<CreateFileInput> = {}): CreateFileInput => ({
  organizationId: 'org_1',
  environment: 'sandbox',
  fileName: 'notes.pdf',
  contentType: 'application/pdf',
  purpose: 'authorization_attachment',
  sizeBytes: 1024,
  ...overrides,
});

const upload = (overrides: Partial<StoredUpload> = {}): StoredUpload => ({
  storedSizeBytes: 1024,
  sniffedContentType: 'application/pdf',
  checksumSha256: 'ab'.repeat(32),
  ...overrides,
});

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    return error instanceof DomainError ? error.code : `not a DomainError: ${String(error)}`;
  }
  return undefined;
};

describe('File', () => {
  describe('create', () => {
    it('starts pending_upload at version 1, unsaved, with a tenant-scoped storage key and an upload window', () => {
      const file = File.create(input(), ctx());
      expect(file.toState()).toEqual({
        id: 'file_1',
        organizationId: 'org_1',
        environment: 'sandbox',
        status: 'pending_upload',
        fileName: 'notes.pdf',
        contentType: 'application/pdf',
        purpose: 'authorization_attachment',
        sizeBytes: 1024,
        checksumSha256: null,
        storageKey: 'sandbox/org_1/files/file_1',
        createdAt: NOW,
        completedAt: null,
        uploadExpiresAt: new Date(NOW.getTime() + FILE_UPLOAD_WINDOW_MS),
        version: 1,
      });
      expect(file.persistedVersion).toBeNull();
      expect(file.pullEvents()).toEqual([{ type: 'file.created', fileId: 'file_1', occurredAt: NOW }]);
      expect(file.pullEvents()).toEqual([]);
    });

    it.each(['application/pdf', 'image/png', 'image/jpeg', 'image/tiff'])('accepts %s', (contentType) => {
      expect(File.create(input({ contentType }), ctx()).contentType).toBe(contentType);
    });

    it('accepts exactly the maximum size', () => {
      expect(File.create(input({ sizeBytes: MAX_FILE_SIZE_BYTES }), ctx()).sizeBytes).toBe(
        MAX_FILE_SIZE_BYTES,
      );
    });

    it.each<[string, Partial<CreateFileInput>]>([
      ['an unknown purpose', { purpose: 'avatar' }],
      ['a disallowed content type', { contentType: 'text/plain' }],
      ['a zero size', { sizeBytes: 0 }],
      ['a negative size', { sizeBytes: -1 }],
      ['a fractional size', { sizeBytes: 1.5 }],
      ['a size over the maximum', { sizeBytes: MAX_FILE_SIZE_BYTES + 1 }],
      ['an empty file name', { fileName: '  ' }],
    ])('refuses %s with file_content_mismatch', (_label, overrides) => {
      expect(codeOf(() => File.create(input(overrides), ctx()))).toBe('file_content_mismatch');
    });
  });

  describe('complete', () => {
    it('becomes ready with checksum and completedAt, bumping the version', () => {
      const file = File.create(input(), ctx());
      file.pullEvents();
      file.complete(upload(), LATER);
      expect(file.status).toBe('ready');
      expect(file.version).toBe(2);
      expect(file.toState()).toMatchObject({ checksumSha256: 'ab'.repeat(32), completedAt: LATER });
      expect(file.pullEvents()).toEqual([{ type: 'file.ready', fileId: 'file_1', occurredAt: LATER }]);
    });

    it('accepts bytes that arrived before the upload window closed even when completed after it', () => {
      const file = File.create(input(), ctx());
      file.complete(upload(), new Date(NOW.getTime() + FILE_UPLOAD_WINDOW_MS + 1));
      expect(file.status).toBe('ready');
    });

    it.each<[string, Partial<StoredUpload>, string]>([
      [
        'no bytes were stored',
        { storedSizeBytes: null, sniffedContentType: null, checksumSha256: null },
        'file_upload_incomplete',
      ],
      ['fewer bytes than declared', { storedSizeBytes: 1000 }, 'file_upload_incomplete'],
      ['more bytes than declared', { storedSizeBytes: 2048 }, 'file_upload_incomplete'],
      ['unrecognised bytes', { sniffedContentType: null }, 'file_content_mismatch'],
      ['bytes of another allowed type', { sniffedContentType: 'image/png' }, 'file_content_mismatch'],
      ['bytes of a disallowed type', { sniffedContentType: 'text/html' }, 'file_content_mismatch'],
    ])('refuses when %s, leaving the file pending', (_label, overrides, code) => {
      const file = File.create(input(), ctx());
      expect(codeOf(() => file.complete(upload(overrides), LATER))).toBe(code);
      expect(file.status).toBe('pending_upload');
      expect(file.version).toBe(1);
    });

    it('refuses a second completion with file_already_completed', () => {
      const file = File.create(input(), ctx());
      file.complete(upload(), LATER);
      expect(codeOf(() => file.complete(upload(), LATER))).toBe('file_already_completed');
    });

    it('treats a matching upload without a checksum as a bug, not a client error', () => {
      const file = File.create(input(), ctx());
      expect(() => file.complete(upload({ checksumSha256: null }), LATER)).toThrow(Error);
      expect(codeOf(() => file.complete(upload({ checksumSha256: null }), LATER))).toMatch(
        /^not a DomainError/,
      );
    });
  });

  describe('assertAttachable', () => {
    it('refuses a pending file with file_not_ready', () => {
      expect(codeOf(() => File.create(input(), ctx()).assertAttachable())).toBe('file_not_ready');
    });

    it('accepts a ready file', () => {
      const file = File.create(input(), ctx());
      file.complete(upload(), LATER);
      expect(() => file.assertAttachable()).not.toThrow();
    });
  });

  describe('persistence', () => {
    it('rehydrates as persisted at the stored version and copies state both ways', () => {
      const state = File.create(input(), ctx()).toState();
      const file = File.rehydrate(state);
      expect(file.persistedVersion).toBe(1);
      state.createdAt.setUTCFullYear(2000);
      expect(file.toState().createdAt).toEqual(NOW);
      file.toState().uploadExpiresAt.setUTCFullYear(2000);
      expect(file.uploadExpiresAt.getUTCFullYear()).toBe(2026);
      expect(file.pullEvents()).toEqual([]);
    });

    it('markPersisted records the current version', () => {
      const file = File.create(input(), ctx());
      file.markPersisted();
      file.complete(upload(), LATER);
      expect(file.persistedVersion).toBe(1);
      file.markPersisted();
      expect(file.persistedVersion).toBe(2);
    });
  });
});
