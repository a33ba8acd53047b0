import type { Authorization, TenantScope } from '@prior-auth/domain';
import { authorizationPresentationLapsesAt } from '@prior-auth/presentation';
import { injectable } from 'inversify';
import { LRUCache } from 'lru-cache';

/** How many bytes of presented authorizations one process keeps (docs/performance.md). */
export const AUTHORIZATION_REPRESENTATION_CACHE_BYTES = 32 * 1024 * 1024;

/** An authorization as one API version shows it: the JSON text sent for `version`. */
export interface AuthorizationRepresentation {
  readonly version: number;
  readonly json: string;
  /**
   * The text as UTF-8, encoded when a retrieve first sends it and kept: every later retrieve of this version
   * writes these bytes instead of encoding the text again (docs/performance.md).
   */
  readonly bytes: Buffer;
  /** Epoch ms from which this text no longer shows the version (a lapsed live-view link); null: never. */
  readonly lapsesAt: number | null;
}

/**
 * The authorizations this process last presented, per tenant, id and API version, so a retrieve of a case
 * that has not changed sends the same text again instead of parsing, presenting and serializing it anew.
 * Nothing is trusted without the database: every retrieve still reads the stored version (one indexed
 * statement, GetAuthorizationUseCase.executeIfChanged), and every change to a case bumps its version, so a
 * held text is sent only for the version it was made from — the strong ETag the response carries. Each
 * process keeps its own, so any number of them serve the same answers.
 */
@injectable()
export class AuthorizationRepresentations {
  private readonly held = new LRUCache<string, AuthorizationRepresentation>({
    maxSize: AUTHORIZATION_REPRESENTATION_CACHE_BYTES,
    // About the text's memory (UTF-16 code units) and its UTF-8 bytes; the key and entry add little.
    sizeCalculation: (representation) => representation.json.length * 2 + 128,
  });

  /** The text held for this case in this API version that still shows it at `now`, if any. */
  find(
    scope: TenantScope,
    id: string,
    apiVersion: string,
    now: number,
  ): AuthorizationRepresentation | undefined {
    const representation = this.held.get(keyOf(scope, id, apiVersion));
    if (representation === undefined) return undefined;
    return representation.lapsesAt === null || now < representation.lapsesAt ? representation : undefined;
  }

  /**
   * The text of this loaded authorization: the one held for its version, else `present`ed now and kept.
   * `present` must be the API version's presenter (its output at `now` is what the text holds).
   */
  of(
    scope: TenantScope,
    authorization: Authorization,
    apiVersion: string,
    now: number,
    present: (authorization: Authorization, at: Date) => unknown,
  ): AuthorizationRepresentation {
    const held = this.find(scope, authorization.id, apiVersion, now);
    if (held !== undefined && held.version === authorization.version) return held;
    const representation = new Representation(
      authorization.version,
      JSON.stringify(present(authorization, new Date(now))),
      authorizationPresentationLapsesAt(authorization),
    );
    this.held.set(keyOf(scope, authorization.id, apiVersion), representation);
    return representation;
  }
}

class Representation implements AuthorizationRepresentation {
  private encoded: Buffer | undefined;

  constructor(
    readonly version: number,
    readonly json: string,
    readonly lapsesAt: number | null,
  ) {}

  get bytes(): Buffer {
    this.encoded ??= Buffer.from(this.json);
    return this.encoded;
  }
}

const keyOf = (scope: TenantScope, id: string, apiVersion: string): string =>
  `${scope.organizationId}\u0000${scope.environment}\u0000${id}\u0000${apiVersion}`;
