import { SNIFF_HEAD_BYTES, sniffContentType } from './sniff-content-type';

const bytes = (...values: number[]): Uint8Array => new Uint8Array(values);
const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

describe('sniffContentType', () => {
  it.each<[string, Uint8Array, string | null]>([
    ['PDF', bytes(...ascii('%PDF-1.7')), 'application/pdf'],
    ['PNG', bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), 'image/png'],
    ['JPEG', bytes(0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46), 'image/jpeg'],
    ['little-endian TIFF', bytes(0x49, 0x49, 0x2a, 0x00, 0x08, 0x00, 0x00, 0x00), 'image/tiff'],
    ['big-endian TIFF', bytes(0x4d, 0x4d, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x08), 'image/tiff'],
    ['plain text', bytes(...ascii('hello wo')), null],
    ['HTML pretending to be PDF', bytes(...ascii('<html>%P')), null],
    ['a PNG signature cut short', bytes(0x89, 0x50, 0x4e, 0x47), null],
    ['nothing', bytes(), null],
  ])('%s → %s', (_label, input, expected) => {
    expect(sniffContentType(input)).toBe(expected);
  });

  it('needs no more than SNIFF_HEAD_BYTES bytes', () => {
    expect(SNIFF_HEAD_BYTES).toBeGreaterThanOrEqual(8);
  });
});
