/*
 * Which addresses a production webhook may reach (spec decision 22, docs/decisions/0031-events-and-webhooks.md):
 * public unicast only. Plain string parsing, so the rule stays in the domain without a network library.
 */

const parseIPv4 = (text: string): number[] | null => {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const bytes = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN));
  return bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255) ? bytes : null;
};

/** The eight 16-bit groups of an IPv6 address, or null. An embedded IPv4 tail becomes the last two groups. */
const parseIPv6 = (text: string): number[] | null => {
  let address = text.replace(/^\[|\]$/g, '').toLowerCase();
  const zone = address.indexOf('%');
  if (zone >= 0) address = address.slice(0, zone);
  if (!/^[0-9a-f:.]+$/.test(address) || !address.includes(':')) return null;
  const lastColon = address.lastIndexOf(':');
  const last = address.slice(lastColon + 1);
  if (last.includes('.')) {
    const v4 = parseIPv4(last);
    if (v4 === null) return null;
    const hex = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);
    address = `${address.slice(0, lastColon + 1)}${hex(v4[0]!, v4[1]!)}:${hex(v4[2]!, v4[3]!)}`;
  }
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  const explicit = head.length + rest.length;
  if (halves.length === 1 ? explicit !== 8 : explicit > 7) return null;
  const all = [...head, ...new Array<string>(8 - explicit).fill('0'), ...rest];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return all.map((g) => parseInt(g, 16));
};

const isPublicIPv4 = ([a, b]: number[]): boolean =>
  !(
    a === 0 || // "this" network
    a === 10 || // private
    a === 127 || // loopback
    (a === 100 && b! >= 64 && b! <= 127) || // shared address space (carrier-grade NAT)
    (a === 169 && b === 254) || // link-local (cloud metadata services live here)
    (a === 172 && b! >= 16 && b! <= 31) || // private
    (a === 192 && b === 168) || // private
    (a === 192 && b === 0) || // IETF protocol assignments
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    a! >= 224 // multicast, reserved, broadcast
  );

const isPublicIPv6 = (g: number[]): boolean => {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0) {
    // ::, ::1, IPv4-compatible and IPv4-mapped (::ffff:a.b.c.d): judged by their IPv4 tail.
    if (g5 === 0xffff || g5 === 0) {
      if (g5 === 0 && g6 === 0 && (g7 === 0 || g7 === 1)) return false;
      return isPublicIPv4([g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff]);
    }
  }
  if ((g0 & 0xfe00) === 0xfc00) return false; // unique local
  if ((g0 & 0xffc0) === 0xfe80) return false; // link-local
  if ((g0 & 0xff00) === 0xff00) return false; // multicast
  if (g0 === 0x64 && g1 === 0xff9b) return isPublicIPv4([g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff]); // NAT64
  if (g0 === 0x2001 && g1 === 0x0db8) return false; // documentation
  return true;
};

/** Whether `host` is an IP address literal (IPv4, or IPv6 with or without brackets). */
export const isIpLiteral = (host: string): boolean => parseIPv4(host) !== null || parseIPv6(host) !== null;

/**
 * True only for a public unicast address: not loopback, private, link-local, shared, multicast or otherwise
 * reserved. Anything that is not an address is not public.
 */
export function isPublicAddress(address: string): boolean {
  const v4 = parseIPv4(address);
  if (v4 !== null) return isPublicIPv4(v4);
  const v6 = parseIPv6(address);
  return v6 !== null && isPublicIPv6(v6);
}
