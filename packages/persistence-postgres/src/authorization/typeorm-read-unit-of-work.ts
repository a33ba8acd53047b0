import type { TenantScope, TransactionalPorts, UnitOfWork } from '@prior-auth/domain';
import type { DataSource } from 'typeorm';
import { translateDatabaseError } from '../database/database-errors';
import type { TypeOrmUnitOfWork } from '../unit-of-work/typeorm-unit-of-work';

const readOnly = (): Promise<never> =>
  Promise.reject(new Error('a read unit of work cannot append events or enqueue jobs'));

/**
 * The UnitOfWork of read-only use cases (retrieve, list): no transaction around them. Each of their reads is
 * one statement (the authorization repository loads a row with its children at once), and a single statement
 * sees one snapshot, so BEGIN and COMMIT were two round trips that bought nothing (docs/performance.md).
 * Inside a command the transactional unit of work joined to the command's transaction reads instead
 * (`TypeOrmUnitOfWork.within`), so the read sees the command's own writes on its connection.
 */
export class TypeOrmReadUnitOfWork implements UnitOfWork {
  constructor(
    private readonly dataSource: DataSource,
    private readonly transactional: TypeOrmUnitOfWork,
  ) {}

  async run<T>(scope: TenantScope, work: (tx: TransactionalPorts) => Promise<T>): Promise<T> {
    const ports = this.transactional.ports(this.dataSource.manager, scope);
    try {
      return await work({
        ...ports,
        domainEvents: { append: readOnly },
        events: { append: readOnly, list: (query) => ports.events.list(query) },
        jobs: { enqueue: readOnly },
        grants: { issue: readOnly, revokeForSubject: readOnly },
      });
    } catch (error) {
      throw translateDatabaseError(error);
    }
  }
}
