/**
 * Where a file's bytes live (ADR 0006). The stored `storageKey` (`<env>/<org>/files/<id>`) is the *staging*
 * key: the signed upload URL writes there and stays valid for its whole window, even after completion (an S3
 * presigned PUT cannot be revoked), so nothing a reader sees is ever read from it. Completion copies the
 * staged object to a key private to that attempt, checks the copy, then copies it to the file's *content*
 * key, `<env>/<org>/content/<id>/sha256-<checksum>`, which is named by the checksum recorded on the file: only
 * bytes with that checksum are ever written there, so a re-upload or a racing completion cannot change what a
 * ready file serves. Both are derived from stored fields, so existing rows need no migration.
 */
export function fileBlobKey(
  storageKey: string,
  of: { checksumSha256: string } | { completionAttemptId: string },
): string {
  const match = /^(.+)\/files\/([^/]+)$/.exec(storageKey);
  if (match === null) throw new Error(`not a file storage key: ${JSON.stringify(storageKey)}`);
  const [, owner, fileId] = match;
  const name = 'checksumSha256' in of ? `sha256-${of.checksumSha256}` : `attempt-${of.completionAttemptId}`;
  return `${owner}/content/${fileId}/${name}`;
}
