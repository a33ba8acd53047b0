import { DomainError } from '../shared/domain-error';
import type { Environment } from '../shared/scope';
import { isIpLiteral, isPublicAddress } from './network-address';

/** Resolves a host name to its addresses (every A and AAAA record); an empty list when it has none. */
export interface HostResolver {
  resolve(hostname: string): Promise<string[]>;
}

export const MAX_WEBHOOK_URL_LENGTH = 2_048;

interface HttpUrl {
  scheme: 'http' | 'https';
  userinfo: boolean;
  /** Lower-cased name, or an address literal (IPv6 without brackets). */
  host: string;
  fragment: boolean;
}

/** `http(s)://[userinfo@]host[:port][/path][?query][#fragment]`, or null. */
function parseHttpUrl(raw: string): HttpUrl | null {
  const match = /^(https?):\/\/([^/?#]*)([^#]*)(#.*)?$/i.exec(raw.trim());
  if (match === null) return null;
  const authority = match[2]!;
  const at = authority.lastIndexOf('@');
  const hostPort = at >= 0 ? authority.slice(at + 1) : authority;
  const host =
    /^\[([0-9a-fA-F:.]+)\](?::\d{1,5})?$/.exec(hostPort)?.[1] ??
    /^([A-Za-z0-9.-]+)(?::\d{1,5})?$/.exec(hostPort)?.[1];
  if (host === undefined || host === '' || /[\s]/.test(match[3]!)) return null;
  return {
    scheme: match[1]!.toLowerCase() as 'http' | 'https',
    userinfo: at >= 0,
    host: host.toLowerCase().replace(/\.$/, ''),
    fragment: match[4] !== undefined,
  };
}

const refuse = (reason: string, details: Record<string, unknown> = {}): never => {
  throw new DomainError('webhook_url_not_allowed', reason, details);
};

/**
 * Spec decision 22 (docs/decisions/0031-events-and-webhooks.md): production endpoints must be https and must
 * not resolve to loopback, private or link-local addresses (every address the name resolves to is checked);
 * sandbox endpoints may be http and local, so a developer can receive on localhost. Checked when an
 * endpoint is created or its URL changes, and again before every delivery (DNS can change).
 * Returns the addresses a production delivery may connect to (empty for the sandbox).
 */
export async function assertWebhookUrlAllowed(
  raw: string,
  environment: Environment,
  resolver: HostResolver,
): Promise<string[]> {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH)
    refuse(`The webhook URL is longer than ${MAX_WEBHOOK_URL_LENGTH}.`);
  const url = parseHttpUrl(raw);
  if (url === null) return refuse('The webhook URL is not an absolute http(s) URL.');
  if (url.userinfo) refuse('The webhook URL must not carry credentials.');
  if (url.fragment) refuse('The webhook URL must not have a fragment.');
  if (environment === 'production' && url.scheme !== 'https') {
    refuse('Production webhook URLs must use https.', { protocol: url.scheme });
  }
  if (environment === 'sandbox') return [];
  const host = url.host;
  const addresses = isIpLiteral(host) ? [host] : await resolver.resolve(host);
  if (addresses.length === 0) refuse(`The webhook host ${host} does not resolve.`, { host });
  const blocked = addresses.filter((address) => !isPublicAddress(address));
  if (blocked.length > 0) {
    refuse(
      `The webhook host ${host} resolves to a loopback, private or link-local address; production endpoints ` +
        'must be reachable on the public internet.',
      { host },
    );
  }
  return addresses;
}
