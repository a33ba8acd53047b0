import { type FileContentType } from './file-content-type';

/** How many leading bytes `sniffContentType` needs; callers read this much of the stored object. */
export const SNIFF_HEAD_BYTES = 8;

const SIGNATURES: ReadonlyArray<{ type: FileContentType; magic: readonly number[] }> = [
  { type: 'application/pdf', magic: [0x25, 0x50, 0x44, 0x46, 0x2d] }, // "%PDF-"
  { type: 'image/png', magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'image/jpeg', magic: [0xff, 0xd8, 0xff] },
  { type: 'image/tiff', magic: [0x49, 0x49, 0x2a, 0x00] }, // little-endian "II*\0"
  { type: 'image/tiff', magic: [0x4d, 0x4d, 0x00, 0x2a] }, // big-endian "MM\0*"
];

/**
 * The allowed content type the bytes really are, judged by their magic number, or null. The declared
 * Content-Type of an upload is client-controlled, so completion trusts only this.
 */
export function sniffContentType(bytes: Uint8Array): FileContentType | null {
  const match = SIGNATURES.find(
    ({ magic }) => bytes.length >= magic.length && magic.every((byte, index) => bytes[index] === byte),
  );
  return match?.type ?? null;
}
