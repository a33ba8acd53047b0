import {
  VersionConflictError,
  type File,
  type FileListQuery,
  type FileRepository,
  type Page,
  type TenantScope,
} from '@prior-auth/domain';
import type { EntityManager } from 'typeorm';
import {
  applyKeysetPage,
  assertPageLimit,
  keysetPage,
  type CursorBinding,
  type KeysetCursors,
} from '../pagination/keyset-cursor';
import { insertStatement, rowTable, runSql, versionedUpdateStatement } from '../unit-of-work/sql';
import { assertSameTenant, storedVersion, tenantQuery } from '../unit-of-work/tenant-bound';
import { FileEntity } from './file.entity';
import { toFile, toFileRow } from './file.mapper';

const FILES = rowTable(FileEntity);

/** Files of ONE tenant on one EntityManager; every statement filters on organization_id and environment. */
export class TypeOrmFileRepository implements FileRepository {
  constructor(
    private readonly manager: EntityManager,
    private readonly scope: TenantScope,
    private readonly cursors: KeysetCursors,
  ) {}

  async findById(id: string): Promise<File | null> {
    const row = await this.rows().andWhere('f.id = :id', { id }).getOne();
    return row === null ? null : toFile(row);
  }

  async list(query: FileListQuery): Promise<Page<File>> {
    assertPageLimit(query.limit);
    const binding: CursorBinding = { resource: 'files', scope: this.scope, filters: {} };
    const after = query.cursor === undefined ? null : this.cursors.decode(binding, query.cursor);
    const rows = await applyKeysetPage(this.rows(), 'f', after, query.limit).getMany();
    const page = keysetPage(rows, query.limit, (position) => this.cursors.encode(binding, position));
    return { items: page.rows.map(toFile), nextCursor: page.nextCursor };
  }

  async save(file: File): Promise<void> {
    assertSameTenant(this.scope, file, 'file');
    const row = toFileRow(file.toState());
    const expected = file.persistedVersion;
    if (expected === null) {
      const insert = insertStatement(FILES, [row], 'ON CONFLICT DO NOTHING RETURNING version');
      const inserted = await runSql(this.manager, insert.sql, insert.parameters);
      if (inserted.rowCount === 0) throw new VersionConflictError(0, await this.storedVersion(file.id));
    } else {
      const update = versionedUpdateStatement(
        FILES,
        row,
        ['organization_id', 'environment', 'id'],
        ['created_at', 'storage_key'],
        expected,
      );
      const updated = await runSql(this.manager, update.sql, update.parameters);
      if (updated.rowCount === 0) throw new VersionConflictError(expected, await this.storedVersion(file.id));
    }
    file.markPersisted();
  }

  private rows() {
    return tenantQuery(this.manager, FileEntity, 'f', this.scope);
  }

  private storedVersion(id: string): Promise<number> {
    return storedVersion(this.manager, 'files', this.scope, id);
  }
}
