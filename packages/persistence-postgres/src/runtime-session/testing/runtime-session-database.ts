import type { TenantScope } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { arrange, type Scenario } from '../../authorization/testing/authorization-builders';
import { openTestDataSource } from '../../database/test-database';
import { createTestTenant, testCursors, uniqueSuffix } from '../../unit-of-work/testing/test-tenants';
import { TypeOrmUnitOfWork } from '../../unit-of-work/typeorm-unit-of-work';
import { TypeOrmRuntimeSessionLedger } from '../typeorm-runtime-session-ledger';

/**
 * The test database of the runtime-session adapters' tests, with the ledger over it. Register it once per file,
 * at the top level: it opens the database before the file's tests and closes it after them.
 */
export class RuntimeSessionDatabase {
  dataSource!: DataSource;
  ledger!: TypeOrmRuntimeSessionLedger;
  unitOfWork!: TypeOrmUnitOfWork;

  private constructor() {}

  static register(): RuntimeSessionDatabase {
    const db = new RuntimeSessionDatabase();
    beforeAll(async () => {
      db.dataSource = await openTestDataSource(4);
      db.unitOfWork = new TypeOrmUnitOfWork(db.dataSource, { cursors: testCursors() });
      db.ledger = new TypeOrmRuntimeSessionLedger(db.dataSource);
    });
    afterAll(() => db.dataSource.destroy());
    return db;
  }

  /** A stored authorization of the tenant: sessions reference their authorization. */
  async storedAuthorization(scope: TenantScope, scenario: Scenario = 'processing'): Promise<string> {
    const arranged = arrange(scope, scenario);
    await this.unitOfWork.run(scope, async (tx) => {
      for (const file of arranged.files) await tx.files.save(file);
      await tx.authorizations.save(arranged.authorization);
    });
    return arranged.authorization.id;
  }

  /** An active browser session of a new case of a new tenant (or of `scope`): its id. */
  async liveSession(scope?: TenantScope): Promise<string> {
    const tenant = scope ?? (await createTestTenant(this.dataSource));
    const id = `rs_${uniqueSuffix()}`;
    await this.ledger.create({
      scope: tenant,
      id,
      authorizationId: await this.storedAuthorization(tenant),
      provider: 'browser',
      status: 'active',
      createdAt: new Date(),
    });
    return id;
  }
}
