import { TypeOrmAuditTrail, TypeOrmOrganizationDirectory } from '@prior-auth/persistence-postgres';
import request from 'supertest';
import { client, createBody } from './authorization-helpers';
import { createTestApp, type TestApp, type TestTenant } from './test-app';

/*
 * docs/decisions/0035-rate-limits-cors-read-audit-and-keys.md: every read of a case or a file with an API key
 * leaves an audit row (who, what, when, request id), written in batches after the answer. Tests wait for the
 * rows to appear; they never sleep.
 */

async function auditRowsFor(
  t: TestApp,
  organizationId: string,
  predicate: (rows: Awaited<ReturnType<TypeOrmAuditTrail['list']>>) => boolean,
  filter: { authorizationId?: string } = {},
) {
  const trail = new TypeOrmAuditTrail(t.dataSource);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = await trail.list({ organizationId, limit: 1000, ...filter });
    if (predicate(rows)) return rows;
    if (Date.now() > deadline) throw new Error(`audit rows never matched: ${JSON.stringify(rows)}`);
    await new Promise((done) => setTimeout(done, 25));
  }
}

describe('audit of reads (decision 0035)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let sandboxKeyId: string;
  beforeAll(async () => {
    t = await createTestApp();
    tenant = await t.createTenant();
    const keys = await new TypeOrmOrganizationDirectory(t.dataSource).listApiKeys(tenant.organizationId);
    sandboxKeyId = keys.find((key) => key.environment === 'sandbox')!.id;
  });
  afterAll(() => t.close());

  it('records who read which case and file, when, with the request id', async () => {
    const api = client(t.app, tenant.keys.sandbox);
    const created = await api.create(createBody(tenant)).expect(201);
    const id = created.body.id as string;
    const before = new Date();
    const retrieved = await api.get(id).expect(200);
    const listed = await api.list('?limit=5').expect(200);
    const file = await api.uploadFile();
    const readFile = await request(t.app)
      .get(`/v1/files/${file.id}`)
      .set('Authorization', `Bearer ${tenant.keys.sandbox}`)
      .expect(200);

    const rows = await auditRowsFor(
      t,
      tenant.organizationId,
      (found) =>
        found.some((row) => row.requestId === retrieved.headers['request-id']) &&
        found.some((row) => row.requestId === listed.headers['request-id']) &&
        found.some((row) => row.requestId === readFile.headers['request-id']),
    );
    const retrieveRow = rows.find((row) => row.requestId === retrieved.headers['request-id'])!;
    expect(retrieveRow).toEqual({
      occurredAt: expect.any(Date),
      environment: 'sandbox',
      actor: `api_key:${sandboxKeyId}`,
      action: 'authorization.read',
      subjectType: 'authorization',
      subjectId: id,
      requestId: retrieved.headers['request-id'],
      details: { via: 'retrieve' },
    });
    expect(retrieveRow.occurredAt.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1_000);
    // A list reads every case it returns.
    const listRows = rows.filter((row) => row.requestId === listed.headers['request-id']);
    expect(listRows.map((row) => row.subjectId).sort()).toEqual(
      (listed.body.data as Array<{ id: string }>).map((item) => item.id).sort(),
    );
    expect(listRows.every((row) => row.action === 'authorization.read' && row.details.via === 'list')).toBe(
      true,
    );
    expect(rows.find((row) => row.requestId === readFile.headers['request-id'])).toEqual(
      expect.objectContaining({ action: 'file.read', subjectType: 'file', subjectId: file.id }),
    );
    // The case's own trail holds its creation and its reads, not the file's.
    const caseRows = await auditRowsFor(t, tenant.organizationId, (found) => found.length > 0, {
      authorizationId: id,
    });
    expect(caseRows.every((row) => row.subjectId === id)).toBe(true);
    expect(caseRows.some((row) => row.action === 'authorization.read')).toBe(true);
  });

  it('records nothing for a read that is refused', async () => {
    const other = await t.createTenant();
    const api = client(t.app, other.keys.sandbox);
    const missing = await api.get('auth_doesnotexist').expect(404);
    const created = await api.create(createBody(other)).expect(201);
    const read = await api.get(created.body.id).expect(200);
    const rows = await auditRowsFor(t, other.organizationId, (found) =>
      found.some((row) => row.requestId === read.headers['request-id']),
    );
    expect(rows.some((row) => row.requestId === missing.headers['request-id'])).toBe(false);
  });
});
