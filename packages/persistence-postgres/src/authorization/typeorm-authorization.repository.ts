import {
  VersionConflictError,
  type Authorization,
  type AuthorizationListQuery,
  type AuthorizationRepository,
  type AuthorizationUnchanged,
  type AuthorizationVersion,
  type Page,
  type TenantScope,
} from '@prior-auth/domain';
import type { EntityManager } from 'typeorm';
import {
  assertPageLimit,
  keysetPage,
  type CursorBinding,
  type KeysetCursors,
  type KeysetPosition,
} from '../pagination/keyset-cursor';
import { insertStatement, rowTable, runSql, versionedUpdateStatement } from '../unit-of-work/sql';
import { assertSameTenant, storedVersion, tenantParameters } from '../unit-of-work/tenant-bound';
import {
  AttachmentEntity,
  AuthorizationEntity,
  ReviewSnapshotEntity,
  type AttachmentRow,
  type AuthorizationRow,
  type ReviewSnapshotRow,
  type Stored,
} from './authorization.entity';
import { toAuthorization, toAuthorizationRows } from './authorization.mapper';
import {
  isKnownCommitted,
  questionnaireFromText,
  rememberCommitted,
  storedQuestionnaire,
} from './questionnaire-text-cache';
import { afterCommit } from '../unit-of-work/after-commit';
import { writeSql } from '../unit-of-work/write-batch';

const AUTHORIZATIONS = rowTable(AuthorizationEntity);
const ATTACHMENTS = rowTable(AttachmentEntity);
const SNAPSHOTS = rowTable(ReviewSnapshotEntity);
const KEY_COLUMNS = ['organization_id', 'environment', 'id'] as const;

/** An authorization row with its attachments and current review snapshot as JSON (one statement per read). */
type LoadedRow = AuthorizationRow & {
  loaded_attachments: Array<Stored<AttachmentRow>>;
  loaded_review_snapshot: Stored<ReviewSnapshotRow> | null;
};

/** What a read returns: the row but its questionnaire as one JSON document, the questionnaire as text. */
interface SelectedRow {
  loaded_row: Stored<Omit<AuthorizationRow, 'questionnaire'>>;
  questionnaire: string;
  loaded_attachments: Array<Stored<AttachmentRow>>;
  loaded_review_snapshot: Stored<ReviewSnapshotRow> | null;
}

/** The row's timestamp columns, read from its EntitySchema: JSON carries them as ISO strings. */
const TIMESTAMP_COLUMNS = Object.entries(AuthorizationEntity.options.columns)
  .filter(([, column]) => column?.type === 'timestamptz')
  .map(([name]) => name);

/** The row as node-postgres would have built it column by column, from the one JSON document it was sent as. */
function toLoadedRow(selected: SelectedRow): LoadedRow {
  const row = selected.loaded_row as Record<string, unknown>;
  for (const column of TIMESTAMP_COLUMNS) {
    const value = row[column];
    if (typeof value === 'string') row[column] = new Date(value);
  }
  // The parsed row is this read's own: extended in place, not spread into a literal that adds members (a new
  // hidden class per row on Node 20's V8, docs/performance.md).
  return Object.assign(row as unknown as Omit<AuthorizationRow, 'questionnaire'>, {
    questionnaire: selected.questionnaire as unknown as AuthorizationRow['questionnaire'],
    loaded_attachments: selected.loaded_attachments,
    loaded_review_snapshot: selected.loaded_review_snapshot,
  });
}

/**
 * The row but its questionnaire as one JSON object. Its documents are `json` columns (decision 0054), which
 * `json_build_object` embeds as stored; `to_jsonb` would parse each of them first.
 */
const ROW_WITHOUT_QUESTIONNAIRE = `json_build_object(${Object.keys(AuthorizationEntity.options.columns)
  .filter((column) => column !== 'questionnaire')
  .map((column) => `'${column}', a.${column}`)
  .join(', ')})`;

/**
 * Every read of authorizations, `$1`/`$2` the tenant: the row, its attachments and its current snapshot in one
 * round trip, so a read is one query on an index whatever the table's size (docs/performance.md). The
 * questionnaire comes as text, parsed once per distinct template (`questionnaireFromText`); the rest of the
 * row as one JSON document, which the driver parses in one call instead of one parser per column.
 */
const LOADED_COLUMNS: Record<keyof SelectedRow, string> = {
  loaded_row: ROW_WITHOUT_QUESTIONNAIRE,
  // A shared catalog template is stored once (decision 0059): one lookup by its primary key.
  questionnaire: `COALESCE(a.questionnaire::text,
      (SELECT d.document::text FROM questionnaire_documents d WHERE d.id = a.questionnaire_id))`,
  loaded_attachments: `COALESCE((SELECT json_agg(t ORDER BY t.position) FROM authorization_attachments t
      WHERE t.organization_id = a.organization_id AND t.environment = a.environment
        AND t.authorization_id = a.id), '[]')`,
  loaded_review_snapshot: `(SELECT to_json(s) FROM review_snapshots s
      WHERE s.organization_id = a.organization_id AND s.environment = a.environment
        AND s.id = a.review_snapshot_id)`,
};

const selectLoaded = (column: (expression: string) => string, first = ''): string => `
  SELECT ${first}${Object.entries(LOADED_COLUMNS)
    .map(([name, expression]) => `${column(expression)} AS ${name}`)
    .join(',\n    ')}
  FROM authorizations a
  WHERE a.organization_id = $1 AND a.environment = $2`;

const SELECT_WITH_CHILDREN = selectLoaded((expression) => expression);

const SELECT_BY_ID = `${SELECT_WITH_CHILDREN} AND a.id = $3`;

/** As SELECT_BY_ID, but only the stored version when it is `$4`: nothing else is built, sent or parsed. */
const SELECT_IF_CHANGED = `${selectLoaded(
  (expression) => `CASE WHEN a.version <> $4::int THEN ${expression} END`,
  'a.version AS stored_version, ',
)} AND a.id = $3`;

/** A listed authorization's version, with what its place in the list is kept by (the cursor). */
interface ListedVersion {
  id: string;
  version: number;
  created_at: Date;
}

/** A list's rows as versions only: nothing of the cases is built, sent or parsed (listVersions). */
const SELECT_VERSIONS = `SELECT a.id, a.version, a.created_at FROM authorizations a
  WHERE a.organization_id = $1 AND a.environment = $2`;

/** Every read of the cases with the ids `$3` stored at the matching versions of `$4` (findVersions). */
const SELECT_VERSIONS_GIVEN = `${SELECT_WITH_CHILDREN} AND a.id = ANY($3::text[])
  AND a.version = ($4::int[])[array_position($3::text[], a.id)]`;

// JSON carries timestamps as ISO strings; the children's rows get their Dates back here.
const loadedChildren = ({
  loaded_attachments: attachments,
  loaded_review_snapshot: snapshot,
}: LoadedRow) => ({
  attachments: attachments.map((row) => ({ ...row, created_at: new Date(row.created_at) })),
  reviewSnapshot: snapshot === null ? null : { ...snapshot, generated_at: new Date(snapshot.generated_at) },
});

/**
 * A shared questionnaire stored once for every case that points at it (decision 0059), written with the case
 * that needs it until the process has seen it committed (decision 0065). Its text is read only when the document
 * is not there yet, so such a save costs one primary-key lookup; two first saves at once meet on the key and
 * both find it stored.
 */
const storeSharedQuestionnaire = ({ id, text }: { id: string; text: string }) => ({
  sql: `INSERT INTO questionnaire_documents (id, document)
    SELECT $1, $2::text::json WHERE NOT EXISTS (SELECT 1 FROM questionnaire_documents WHERE id = $1)
    ON CONFLICT (id) DO NOTHING`,
  parameters: [id, text],
});

const toLoadedAuthorization = (
  row: LoadedRow,
  children: ReturnType<typeof loadedChildren> = loadedChildren(row),
): Authorization => {
  const { loaded_attachments: _attachments, loaded_review_snapshot: _snapshot, ...authorization } = row;
  const questionnaire = questionnaireFromText(row.questionnaire as unknown as string, row.questionnaire_id);
  return toAuthorization({ authorization: { ...authorization, questionnaire }, ...children });
};

/**
 * A comparable text of child rows: equal texts are equal rows. Key order is normalized at the top level only,
 * so rows differing in a nested object's key order read as changed — at worst a needless write, never a lost one.
 */
const rowsKey = (rows: ReadonlyArray<object | null>): string =>
  JSON.stringify(
    rows.map((row) =>
      row === null
        ? null
        : Object.entries(row)
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([column, value]) => [column, value instanceof Date ? value.toISOString() : value]),
    ),
  );

/**
 * The child rows an aggregate was loaded with (or last saved with) in this unit of work, compared as text
 * only when it is saved (a read never pays for the text).
 */
interface StoredChildren {
  attachments: readonly AttachmentRow[];
  reviewSnapshot: ReviewSnapshotRow | null;
}

/**
 * Authorizations of ONE tenant on one EntityManager (normally the unit of work's transaction). Every
 * statement filters on organization_id and environment, so no call can reach another tenant's rows.
 */
export class TypeOrmAuthorizationRepository implements AuthorizationRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly scope: TenantScope,
    private readonly cursors: KeysetCursors,
  ) {}

  /**
   * Per aggregate loaded in this unit of work, its child rows as stored: a save that leaves them as they were
   * skips rewriting them (a DELETE and an INSERT round trip per command, docs/performance.md).
   */
  private readonly stored = new Map<string, StoredChildren>();

  async findById(id: string): Promise<Authorization | null> {
    const { rows } = await runSql<SelectedRow>(
      this.manager,
      SELECT_BY_ID,
      [...tenantParameters(this.scope), id],
      { prepared: true },
    );
    const [selected] = rows;
    if (selected === undefined) return null;
    const row = toLoadedRow(selected);
    const children = loadedChildren(row);
    this.stored.set(id, children);
    return toLoadedAuthorization(row, children);
  }

  async findIfChanged(
    id: string,
    knownVersion: number,
  ): Promise<Authorization | AuthorizationUnchanged | null> {
    const { rows } = await runSql<
      (SelectedRow | Record<keyof SelectedRow, null>) & { stored_version: number }
    >(this.manager, SELECT_IF_CHANGED, [...tenantParameters(this.scope), id, knownVersion], {
      prepared: true,
    });
    const [selected] = rows;
    if (selected === undefined) return null;
    if (selected.loaded_row === null) return { unchanged: true, id, version: selected.stored_version };
    const row = toLoadedRow(selected);
    const children = loadedChildren(row);
    this.stored.set(id, children);
    return toLoadedAuthorization(row, children);
  }

  async list(query: AuthorizationListQuery): Promise<Page<Authorization>> {
    const selected = await this.listed<SelectedRow>(SELECT_WITH_CHILDREN, query);
    const page = keysetPage(selected.rows.map(toLoadedRow), query.limit, selected.cursor);
    return { items: page.rows.map((row) => toLoadedAuthorization(row)), nextCursor: page.nextCursor };
  }

  async listVersions(query: AuthorizationListQuery): Promise<Page<AuthorizationVersion>> {
    const selected = await this.listed<ListedVersion>(SELECT_VERSIONS, query);
    const page = keysetPage(selected.rows, query.limit, selected.cursor);
    return { items: page.rows.map(({ id, version }) => ({ id, version })), nextCursor: page.nextCursor };
  }

  async findVersions(versions: readonly AuthorizationVersion[]): Promise<Authorization[]> {
    if (versions.length === 0) return [];
    const { rows } = await runSql<SelectedRow>(
      this.manager,
      SELECT_VERSIONS_GIVEN,
      [...tenantParameters(this.scope), versions.map(({ id }) => id), versions.map(({ version }) => version)],
      { prepared: true },
    );
    return rows.map((selected) => toLoadedAuthorization(toLoadedRow(selected)));
  }

  /** The rows of `select` for one page (and one more), newest first, filtered as the query asks. */
  private async listed<R>(
    select: string,
    query: AuthorizationListQuery,
  ): Promise<{ rows: R[]; cursor: (position: KeysetPosition) => string }> {
    assertPageLimit(query.limit);
    const binding: CursorBinding = {
      resource: 'authorizations',
      scope: this.scope,
      // The overdue filter binds the cursor by its presence: "now" moves between pages.
      filters: {
        status: query.status ?? null,
        ...(query.decisionOverdueAt === undefined ? {} : { overdue: 'true' }),
      },
    };
    const after = query.cursor === undefined ? null : this.cursors.decode(binding, query.cursor);
    const parameters: unknown[] = [...tenantParameters(this.scope)];
    let sql = select;
    if (query.status !== undefined) {
      parameters.push(query.status);
      sql += ` AND a.status = $${parameters.length}`;
    }
    if (query.decisionOverdueAt !== undefined) {
      parameters.push(query.decisionOverdueAt);
      sql += ` AND a.status = 'waiting_on_payer' AND a.decision_due_at < $${parameters.length}`;
    }
    if (after !== null) {
      parameters.push(after.createdAt, after.id);
      sql += ` AND (a.created_at, a.id) < ($${parameters.length - 1}, $${parameters.length})`;
    }
    parameters.push(query.limit + 1);
    sql += ` ORDER BY a.created_at DESC, a.id DESC LIMIT $${parameters.length}`;
    const { rows } = await runSql<R>(this.manager, sql, parameters, { prepared: true });
    return { rows, cursor: (position) => this.cursors.encode(binding, position) };
  }

  async save(authorization: Authorization): Promise<void> {
    assertSameTenant(this.scope, authorization, 'authorization');
    const state = authorization.readState();
    const rows = toAuthorizationRows(state);
    const expected = authorization.persistedVersion;
    const shared = storedQuestionnaire(state.questionnaire);
    if (shared !== null && !isKnownCommitted(shared.id)) {
      await writeSql(this.manager, storeSharedQuestionnaire(shared));
      afterCommit(this.manager, () => rememberCommitted(shared.id));
    }
    if (expected === null) {
      const insert = insertStatement(
        AUTHORIZATIONS,
        [rows.authorization],
        'ON CONFLICT DO NOTHING RETURNING version',
      );
      await writeSql(
        this.manager,
        insert,
        async (inserted) => {
          if (inserted.rowCount === 0)
            throw new VersionConflictError(0, await this.storedVersion(authorization.id));
        },
        { expect: 'rows' },
      );
    } else {
      const update = versionedUpdateStatement(
        AUTHORIZATIONS,
        rows.authorization,
        KEY_COLUMNS,
        ['created_at'],
        expected,
      );
      await writeSql(
        this.manager,
        update,
        async (updated) => {
          if (updated.rowCount === 0)
            throw new VersionConflictError(expected, await this.storedVersion(authorization.id));
        },
        { expect: 'rows' },
      );
    }
    const before = expected === null ? undefined : this.stored.get(authorization.id);
    if (before === undefined || rowsKey([rows.reviewSnapshot]) !== rowsKey([before.reviewSnapshot]))
      await this.writeReviewSnapshot(rows.reviewSnapshot);
    if (before === undefined || rowsKey(rows.attachments) !== rowsKey(before.attachments))
      await this.writeAttachments(authorization.id, rows.attachments, expected === null);
    this.stored.set(authorization.id, { attachments: rows.attachments, reviewSnapshot: rows.reviewSnapshot });
    authorization.markPersisted();
  }

  private storedVersion(id: string): Promise<number> {
    return storedVersion(this.manager, 'authorizations', this.scope, id);
  }

  /**
   * Snapshots are immutable except for their status; earlier ones stay (an approved snapshot is the evidence of
   * what the customer approved), so this is an upsert, never a delete.
   */
  private async writeReviewSnapshot(snapshot: ReviewSnapshotRow | null): Promise<void> {
    if (snapshot === null) return;
    const upsert = insertStatement(
      SNAPSHOTS,
      [snapshot],
      `ON CONFLICT (organization_id, environment, id) DO UPDATE SET status = EXCLUDED.status
        WHERE review_snapshots.authorization_id = EXCLUDED.authorization_id`,
    );
    await writeSql(this.manager, upsert);
  }

  /** The handful of attachment rows is rewritten with the aggregate, in the same transaction. */
  private async writeAttachments(
    authorizationId: string,
    attachments: AttachmentRow[],
    isNew: boolean,
  ): Promise<void> {
    // A new aggregate has no rows yet: no DELETE round trip for it (docs/performance.md).
    if (!isNew)
      await writeSql(this.manager, {
        sql: 'DELETE FROM authorization_attachments WHERE organization_id = $1 AND environment = $2 AND authorization_id = $3',
        parameters: [...tenantParameters(this.scope), authorizationId],
      });
    if (attachments.length === 0) return;
    await writeSql(this.manager, insertStatement(ATTACHMENTS, attachments));
  }
}
