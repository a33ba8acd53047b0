import type { TenantScope } from '@prior-auth/domain';
import type { DataSource, Logger } from 'typeorm';
import { createDataSource } from '../database/data-source';
import { openTestDataSource } from '../database/test-database';
import { createTestTenant, testCursors } from '../unit-of-work/testing/test-tenants';
import { TypeOrmUnitOfWork } from '../unit-of-work/typeorm-unit-of-work';
import { createAuthorization, testContext } from './testing/authorization-builders';

/**
 * Proof that the repository's own SQL is served by the intended indexes on a table that is not tiny:
 * another tenant holds 20 000 authorizations, statistics are fresh, and the planner runs with its
 * default settings. The statements explained are the ones the repository sent, captured by a logger.
 */

interface Captured {
  sql: string;
  parameters: unknown[];
}

class CapturingLogger implements Logger {
  readonly queries: Captured[] = [];
  logQuery(query: string, parameters?: unknown[]): void {
    this.queries.push({ sql: query, parameters: parameters ?? [] });
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

let dataSource: DataSource;
let probe: DataSource;
let logger: CapturingLogger;
let bigTenant: TenantScope;
let smallTenant: TenantScope;
let unitOfWork: TypeOrmUnitOfWork;
const BIG = 20_000;
const smallIds: string[] = [];

beforeAll(async () => {
  dataSource = await openTestDataSource(2);
  bigTenant = await createTestTenant(dataSource);
  smallTenant = await createTestTenant(dataSource);
  await dataSource.query(
    `INSERT INTO authorizations (organization_id, environment, id, version, status, provider_npi, payer_id, route_id,
       portal_auth_mode, policy, payer, template_selection, questionnaire, document_requirements, questionnaire_response,
       questionnaire_response_version, attachment_version, requirements, submission, created_at, updated_at, canceled_at)
     SELECT $1, $2, 'auth_bulk_' || $1 || '_' || g, 1, CASE WHEN g % 5 = 0 THEN 'canceled' ELSE 'requires_input' END,
       '1234567893', 'payer_uhc', 'route_1', 'automated', '{"finalSubmission":"automatic"}', '{}', '{}', '{}', '[]',
       '{"item":[]}', 1, 1, '{"version":1,"questions":[],"documents":[],"issues":[]}',
       '{"payerReceipt":null,"decision":null}', t, t,
       CASE WHEN g % 5 = 0 THEN t END
     FROM generate_series(1, ${BIG}) AS g, LATERAL (SELECT timestamptz '2025-06-01' + g * interval '1 minute' AS t) AS times`,
    [bigTenant.organizationId, bigTenant.environment],
  );

  logger = new CapturingLogger();
  probe = createDataSource({ url: process.env.DATABASE_URL!, poolSize: 2 });
  probe.setOptions({ logger });
  await probe.initialize();
  unitOfWork = new TypeOrmUnitOfWork(probe, { cursors: testCursors() });
  await unitOfWork.run(smallTenant, async (tx) => {
    for (let index = 0; index < 5; index += 1) {
      const authorization = createAuthorization(
        smallTenant,
        testContext(new Date(Date.UTC(2026, 1, 1, index))),
      );
      await tx.authorizations.save(authorization);
      smallIds.push(authorization.id);
    }
  });
  await dataSource.query('ANALYZE authorizations');
}, 30_000);

afterAll(async () => {
  await probe?.destroy();
  await dataSource?.destroy();
});

/** The plan nodes reading `authorizations` for the repository statement that `action` sends first. */
async function plannedScans(action: () => Promise<unknown>): Promise<PlanNode[]> {
  logger.queries.length = 0;
  await action();
  const statement = logger.queries.find(
    (q) => /^\s*SELECT/i.test(q.sql) && /FROM "?authorizations"?[\s)]/.test(q.sql),
  );
  if (statement === undefined) throw new Error('the repository sent no SELECT on authorizations');
  const [row] = await dataSource.query(`EXPLAIN (FORMAT JSON) ${statement.sql}`, statement.parameters);
  const nodes = nodesOf((row['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan);
  expect(
    nodes.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'authorizations'),
  ).toEqual([]);
  return nodes;
}

const scanOf = (nodes: PlanNode[]) => nodes.find((n) => n['Relation Name'] === 'authorizations');

describe('authorization query plans (20 000 rows of another tenant)', () => {
  it.each([
    ['the big tenant', () => bigTenant, () => `auth_bulk_${bigTenant.organizationId}_12345`],
    ['a small tenant', () => smallTenant, () => smallIds[2]!],
  ])('retrieves one authorization of %s through the primary key', async (_label, scope, id) => {
    const nodes = await plannedScans(() => unitOfWork.run(scope(), (tx) => tx.authorizations.findById(id())));
    expect(scanOf(nodes)).toMatchObject({
      'Node Type': expect.stringMatching(/^Index (Only )?Scan$/),
      'Index Name': 'authorizations_pkey',
    });
  });

  it('finds authorizations of the big tenant at given versions through the primary key', async () => {
    const versions = [12, 345, 6789].map((n) => ({
      id: `auth_bulk_${bigTenant.organizationId}_${n}`,
      version: 1,
    }));
    const nodes = await plannedScans(async () => {
      const found = await unitOfWork.run(bigTenant, (tx) => tx.authorizations.findVersions(versions));
      expect(found).toHaveLength(3);
    });
    expect(scanOf(nodes)).toMatchObject({
      'Node Type': expect.stringMatching(/^(Index|Bitmap Index) Scan$|^Bitmap Heap Scan$/),
    });
    expect(nodes.map((n) => n['Index Name']).filter(Boolean)).toContain('authorizations_pkey');
  });

  it.each([
    ['first page', 'list', undefined],
    ['page after a cursor', 'list', 'cursor'],
    ['first page', 'listVersions', undefined],
    ['page after a cursor', 'listVersions', 'cursor'],
  ] as const)(
    'reads a %s of the big tenant from the keyset index, already ordered (%s)',
    async (_label, read, withCursor) => {
      const first = await unitOfWork.run(bigTenant, (tx) => tx.authorizations.list({ limit: 25 }));
      const cursor = withCursor === undefined ? undefined : first.nextCursor!;
      const nodes = await plannedScans(() =>
        unitOfWork.run(bigTenant, (tx) => tx.authorizations[read]({ limit: 25, cursor })),
      );
      expect(scanOf(nodes)).toMatchObject({
        'Node Type': 'Index Scan',
        'Index Name': 'authorizations_list_idx',
      });
      expect(nodes.map((n) => n['Node Type'])).not.toContain('Sort');
    },
  );

  it('reads a status-filtered page from the status index, already ordered', async () => {
    const first = await unitOfWork.run(bigTenant, (tx) =>
      tx.authorizations.list({ limit: 25, status: 'canceled' }),
    );
    expect(first.items.every((a) => a.status === 'canceled')).toBe(true);
    const nodes = await plannedScans(() =>
      unitOfWork.run(bigTenant, (tx) =>
        tx.authorizations.list({ limit: 25, status: 'canceled', cursor: first.nextCursor! }),
      ),
    );
    expect(scanOf(nodes)).toMatchObject({
      'Node Type': 'Index Scan',
      'Index Name': 'authorizations_status_list_idx',
    });
    expect(nodes.map((n) => n['Node Type'])).not.toContain('Sort');
  });

  it('reads a page of a small tenant through an index, never scanning the other tenant’s rows', async () => {
    const nodes = await plannedScans(() =>
      unitOfWork.run(smallTenant, (tx) => tx.authorizations.list({ limit: 25 })),
    );
    expect(scanOf(nodes)?.['Node Type']).toMatch(/^Index (Only )?Scan$|^Bitmap Heap Scan$/);
  });
});
