import { FILE_UPLOAD_WINDOW_MS } from '../file/file.aggregate';
import { fileBlobKey } from '../file/file-storage-keys';
import { MAX_FILE_SIZE_BYTES } from '../file/file-content-type';
import { DomainError } from '../shared/domain-error';
import { createHarness, OTHER_SCOPE, PDF_BYTES, SCOPE, type Harness } from '../testing';
import { CompleteFileUseCase } from './complete-file.use-case';
import { CreateFileUseCase } from './create-file.use-case';
import { FILE_DOWNLOAD_URL_TTL_MS, GetFileUseCase } from './get-file.use-case';
import { ListFilesUseCase } from './list-files.use-case';

const codeOf = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
  throw new Error('expected a DomainError');
};

const PNG_BYTES = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]);

let h: Harness;
beforeEach(() => {
  h = createHarness();
});

const contentKeyOf = (file: { storageKey: string; toState(): { checksumSha256: string | null } }) =>
  fileBlobKey(file.storageKey, { checksumSha256: file.toState().checksumSha256 ?? 'none' });

const completeFile = (fileId: string) => new CompleteFileUseCase(h.deps).execute(SCOPE, { fileId });

describe('CreateFileUseCase', () => {
  it('saves a pending file and returns a signed upload target for its storage key', async () => {
    const { file, uploadUrl } = await new CreateFileUseCase(h.deps).execute(SCOPE, {
      fileName: 'scan.tiff',
      contentType: 'image/tiff',
      sizeBytes: 2048,
      purpose: 'authorization_attachment',
    });
    expect(file.status).toBe('pending_upload');
    expect(uploadUrl).toContain(file.storageKey);
    expect(h.blobStore.uploadTargets).toEqual([
      {
        key: file.storageKey,
        contentType: 'image/tiff',
        sizeBytes: 2048,
        expiresAt: new Date(h.clock.now().getTime() + FILE_UPLOAD_WINDOW_MS),
      },
    ]);
    const stored = await h.unitOfWork.run(SCOPE, (tx) => tx.files.findById(file.id));
    expect(stored?.toState()).toEqual(file.toState());
    expect(h.domainEvents().map((e) => [e.type, e.aggregateType])).toEqual([['file.created', 'file']]);
  });

  it.each([
    { contentType: 'application/zip' },
    { sizeBytes: MAX_FILE_SIZE_BYTES + 1 },
    { purpose: 'profile_picture' },
  ])('refuses %o with file_content_mismatch and stores nothing', async (overrides) => {
    const result = new CreateFileUseCase(h.deps).execute(SCOPE, {
      fileName: 'x.pdf',
      contentType: 'application/pdf',
      sizeBytes: 10,
      purpose: 'authorization_attachment',
      ...overrides,
    });
    expect(await codeOf(result)).toBe('file_content_mismatch');
    expect(h.unitOfWork.commits).toBe(0);
    expect(h.blobStore.uploadTargets).toEqual([]);
  });
});

describe('CompleteFileUseCase', () => {
  it('marks the file ready with the checksum of the stored bytes', async () => {
    const pending = await h.uploadFile();
    const ready = await completeFile(pending.id);
    expect(ready.status).toBe('ready');
    expect(ready.toState().checksumSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(ready.toState().completedAt).toEqual(h.clock.now());
  });

  it.each<[string, (h: Harness, key: string) => void, string]>([
    ['nothing was uploaded', () => undefined, 'file_upload_incomplete'],
    [
      'the upload is short',
      (x, key) => x.blobStore.upload(key, PDF_BYTES.slice(0, 5)),
      'file_upload_incomplete',
    ],
    [
      'the bytes are a PNG, not the declared PDF',
      (x, key) => x.blobStore.upload(key, PNG_BYTES),
      'file_content_mismatch',
    ],
    [
      'the bytes are no allowed type',
      (x, key) => x.blobStore.upload(key, new TextEncoder().encode('<html>hi</')),
      'file_content_mismatch',
    ],
  ])('refuses when %s, without hashing, and the file stays pending', async (_label, arrange, code) => {
    const { file } = await new CreateFileUseCase(h.deps).execute(SCOPE, {
      fileName: 'notes.pdf',
      contentType: 'application/pdf',
      sizeBytes: PDF_BYTES.length,
      purpose: 'authorization_attachment',
    });
    arrange(h, file.storageKey);
    expect(await codeOf(completeFile(file.id))).toBe(code);
    expect(h.blobStore.checksumReads).toBe(0);
    const stored = await h.unitOfWork.run(SCOPE, (tx) => tx.files.findById(file.id));
    expect(stored?.status).toBe('pending_upload');

    // A corrected upload within the window can still be completed.
    h.blobStore.upload(file.storageKey, PDF_BYTES);
    expect((await completeFile(file.id)).status).toBe('ready');
  });

  it('checks a private copy of the upload and keeps only the verified copy, under the checksum', async () => {
    const pending = await h.uploadFile();
    const ready = await completeFile(pending.id);
    const checksum = ready.toState().checksumSha256 ?? '';
    expect(contentKeyOf(ready)).toBe(`sandbox/org_1/content/${ready.id}/sha256-${checksum}`);
    expect([...h.blobStore.objects.keys()].sort()).toEqual([contentKeyOf(ready), ready.storageKey].sort());
    expect(h.blobStore.objects.get(contentKeyOf(ready))).toEqual(PDF_BYTES);
    expect(await h.blobStore.checksumSha256(contentKeyOf(ready))).toBe(checksum);
  });

  it('leaves nothing but the staged upload behind when the check fails', async () => {
    const pending = await h.uploadFile();
    h.blobStore.upload(pending.storageKey, PDF_BYTES.slice(0, 5));
    expect(await codeOf(completeFile(pending.id))).toBe('file_upload_incomplete');
    expect([...h.blobStore.objects.keys()]).toEqual([pending.storageKey]);
  });

  it('ignores a re-upload to the still-valid upload URL after completion', async () => {
    const ready = await completeFile((await h.uploadFile()).id);
    const recorded = ready.toState();
    const forged = PDF_BYTES.map((byte, at) => (at === PDF_BYTES.length - 1 ? byte ^ 0xff : byte));
    h.blobStore.upload(ready.storageKey, forged);

    expect(await codeOf(completeFile(ready.id))).toBe('file_already_completed');
    const { file, downloadUrl } = await new GetFileUseCase(h.deps).execute(SCOPE, { fileId: ready.id });
    expect(file.toState()).toEqual(recorded);
    expect(downloadUrl).toContain(`memory://download/${contentKeyOf(ready)}?`);
    expect(h.blobStore.objects.get(contentKeyOf(ready))).toEqual(PDF_BYTES);
    expect(await h.blobStore.checksumSha256(contentKeyOf(ready))).toBe(recorded.checksumSha256);
  });

  it('refuses a second completion, an unknown file and another tenant’s file', async () => {
    const ready = await h.readyFile();
    expect(await codeOf(completeFile(ready.id))).toBe('file_already_completed');
    expect(await codeOf(completeFile('file_404'))).toBe('file_not_found');
    const foreign = await h.uploadFile(OTHER_SCOPE);
    expect(await codeOf(completeFile(foreign.id))).toBe('file_not_found');
  });
});

describe('GetFileUseCase / ListFilesUseCase', () => {
  it('offers a short-lived download URL only once the file is ready', async () => {
    const get = new GetFileUseCase(h.deps);
    const pending = await h.uploadFile();
    expect(await get.execute(SCOPE, { fileId: pending.id })).toMatchObject({ downloadUrl: null });
    await completeFile(pending.id);
    const { file, downloadUrl } = await get.execute(SCOPE, { fileId: pending.id });
    expect(file.status).toBe('ready');
    expect(downloadUrl).toBe(
      `memory://download/${contentKeyOf(file)}?expires=${new Date(h.clock.now().getTime() + FILE_DOWNLOAD_URL_TTL_MS).toISOString()}`,
    );
    expect(await codeOf(get.execute(OTHER_SCOPE, { fileId: pending.id }))).toBe('file_not_found');
  });

  it('lists the tenant’s files newest first', async () => {
    const first = await h.uploadFile();
    h.clock.advance(1000);
    const second = await h.readyFile();
    await h.uploadFile(OTHER_SCOPE);
    const page = await new ListFilesUseCase(h.deps).execute(SCOPE, { limit: 10 });
    expect(page.items.map((f) => f.id)).toEqual([second.id, first.id]);
    expect(page.nextCursor).toBeNull();
  });
});
