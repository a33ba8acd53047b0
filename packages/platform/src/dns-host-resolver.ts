import { lookup } from 'node:dns/promises';
import type { HostResolver } from '@prior-auth/domain';

/** Every address the system resolver gives for a name (A and AAAA); none when the name does not resolve. */
export class DnsHostResolver implements HostResolver {
  async resolve(hostname: string): Promise<string[]> {
    try {
      const answers = await lookup(hostname, { all: true, verbatim: true });
      return answers.map((answer) => answer.address);
    } catch {
      return [];
    }
  }
}
