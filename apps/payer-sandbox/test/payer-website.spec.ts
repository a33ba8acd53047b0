import { randomUUID } from 'node:crypto';
import { generateSync } from 'otplib';
import request from 'supertest';
import { DEMO_ACCOUNT, LOCKED_ACCOUNT, type RunningPayerSandbox, type SandboxAccount } from '../src';
import { PDF_BYTES, startTestSandbox } from './support/portal-harness';

// The website's own behaviour over plain HTTP: sign-in, validation messages, uploads, status pages.
let sandbox: RunningPayerSandbox;
// The website takes each one-time code once per user: every full sign-in here is a user of its own.
const accounts: SandboxAccount[] = Array.from({ length: 4 }, () => ({
  ...DEMO_ACCOUNT,
  username: `site.${randomUUID()}`,
}));
let nextAccount = 0;
const ownAccount = (): SandboxAccount => accounts[nextAccount++]!;

beforeAll(async () => {
  sandbox = await startTestSandbox({ accounts });
});

afterAll(async () => {
  await sandbox?.close();
});

const cookieOf = (response: request.Response) =>
  String(response.headers['set-cookie']?.[0] ?? '').split(';')[0]!;

/** A fully signed-in agent with a provider chosen and a member found, ready to start a request. */
async function signedIn(memberId = 'SBX-APPROVED'): Promise<{ agent: ReturnType<typeof request.agent> }> {
  const agent = request.agent(sandbox.url);
  const account = ownAccount();
  await agent
    .post('/sign-in')
    .type('form')
    .send({ username: account.username, password: account.password })
    .expect(303);
  await agent
    .post('/sign-in/verify')
    .type('form')
    .send({ code: generateSync({ secret: account.totpSecret }) })
    .expect(303);
  await agent.post('/providers').type('form').send({ npi: '1234567893' }).expect(303);
  await agent.post('/members').type('form').send({ memberId, birthDate: '1970-05-01' }).expect(303);
  await agent.post('/requests/new').expect(303);
  return { agent };
}

describe('the simulated payer website', () => {
  it('sign-in: wrong password 401, locked account 423, wrong code 401, pages need a session', async () => {
    const wrong = await request(sandbox.url)
      .post('/sign-in')
      .type('form')
      .send({ username: DEMO_ACCOUNT.username, password: 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('data-error="invalid-credentials"');
    const locked = await request(sandbox.url)
      .post('/sign-in')
      .type('form')
      .send({ username: LOCKED_ACCOUNT.username, password: LOCKED_ACCOUNT.password });
    expect(locked.status).toBe(423);
    expect(locked.text).toContain('data-page="account-locked"');
    const ok = await request(sandbox.url)
      .post('/sign-in')
      .type('form')
      .send({ username: DEMO_ACCOUNT.username, password: DEMO_ACCOUNT.password });
    expect(ok.status).toBe(303);
    const badCode = await request(sandbox.url)
      .post('/sign-in/verify')
      .set('Cookie', cookieOf(ok))
      .type('form')
      .send({ code: '000000' });
    expect(badCode.status).toBe(401);
    expect(badCode.text).toContain('data-error="invalid-code"');
    // Password without the code does not open the portal.
    await request(sandbox.url)
      .get('/providers')
      .set('Cookie', cookieOf(ok))
      .expect(303)
      .expect('Location', '/sign-in/verify');
    await request(sandbox.url).get('/providers').expect(303).expect('Location', '/sign-in');
    await request(sandbox.url)
      .get('/providers')
      .set('Cookie', 'psid=forged')
      .expect(303)
      .expect('Location', '/sign-in?expired=1');
  });

  it('member lookup validates its fields and shows an unknown member as an error page', async () => {
    const agent = request.agent(sandbox.url);
    const account = ownAccount();
    await agent
      .post('/sign-in')
      .type('form')
      .send({ username: account.username, password: account.password });
    await agent
      .post('/sign-in/verify')
      .type('form')
      .send({ code: generateSync({ secret: account.totpSecret }) })
      .expect(303);
    expect((await agent.post('/providers').type('form').send({ npi: '12345' })).status).toBe(422);
    await agent.post('/providers').type('form').send({ npi: '1234567893' }).expect(303);
    const invalid = await agent.post('/members').type('form').send({ memberId: '', birthDate: '2999-01-01' });
    expect(invalid.status).toBe(422);
    expect(invalid.text).toContain('data-for="memberId"');
    expect(invalid.text).toContain('cannot be in the future');
    const unknown = await agent
      .post('/members')
      .type('form')
      .send({ memberId: 'SBX-UNKNOWN-MEMBER', birthDate: '1970-05-01' });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('data-page="member-not-found"');
  });

  it('the request form validates every field server-side; portal_question adds a required field', async () => {
    const { agent } = await signedIn();
    const bad = await agent.post('/requests/draft/service').type('form').send({
      externalReference: '',
      serviceCode: 'E06',
      diagnosisCode: '123',
      startDate: '2027-02-30',
      endDate: 'x',
    });
    expect(bad.status).toBe(422);
    for (const name of ['externalReference', 'serviceCode', 'diagnosisCode', 'startDate', 'endDate']) {
      expect(bad.text).toContain(`data-for="${name}"`);
    }
    const backwards = await agent.post('/requests/draft/service').type('form').send({
      externalReference: 'r1',
      serviceCode: 'E0601',
      diagnosisCode: 'G47.33',
      startDate: '2027-02-10',
      endDate: '2027-01-01',
    });
    expect(backwards.text).toContain('cannot be before the start date');
    const question = await signedIn('SBX-PORTAL-QUESTION');
    const missing = await question.agent.post('/requests/draft/service').type('form').send({
      externalReference: 'r2',
      serviceCode: 'E0601',
      diagnosisCode: 'G47.33',
      startDate: '2027-02-10',
    });
    expect(missing.status).toBe(422);
    expect(missing.text).toContain('data-for="portal.plannedStartDate"');
  });

  it('uploads: a real PDF is kept, anything else is refused; submit gives a reference whose status page and letter follow', async () => {
    const { agent } = await signedIn();
    const key = `website-${Date.now()}-${Math.random()}`;
    await agent
      .post('/requests/draft/service')
      .type('form')
      .send({
        externalReference: key,
        serviceCode: 'E0601',
        diagnosisCode: 'G47.33',
        startDate: '2027-02-10',
      })
      .expect(303);
    await agent.get('/requests/draft/documents').expect(303).expect('Location', '/requests/draft/clinical');
    expect((await agent.post('/requests/draft/clinical').type('form').send({ clinical: '' })).status).toBe(
      422,
    );
    await agent
      .post('/requests/draft/clinical')
      .type('form')
      .send({ clinical: 'clinical.ahi: 32' })
      .expect(303);
    const refused = await agent
      .post('/requests/draft/documents')
      .field('documentType', 'clinical_notes')
      .attach('file', Buffer.from('MZ executable'), {
        filename: 'notes.pdf',
        contentType: 'application/pdf',
      });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('data-error="upload-refused"');
    expect((await agent.post('/requests/draft/documents').field('documentType', 'x')).status).toBe(422);
    await agent
      .post('/requests/draft/documents')
      .field('documentType', 'clinical_notes')
      .attach('file', PDF_BYTES, { filename: 'notes.pdf', contentType: 'application/pdf' })
      .expect(303);
    expect((await agent.get('/requests/draft/review')).text).toContain('notes.pdf');
    const submitted = await agent.post('/requests/draft/submit').expect(303);
    const reference = /\/requests\/(PSX-[0-9A-F]+)\/confirmation/.exec(submitted.headers.location!)![1]!;
    expect((await agent.get(submitted.headers.location!)).text).toContain(reference);
    expect(await sandbox.submissionCount(key)).toBe(1);
    const status = await agent.get(`/requests/${reference}`).expect(200);
    expect(status.text).toContain('data-status="approved"');
    const letter = await agent
      .get(`/requests/${reference}/letter.pdf`)
      .buffer(true)
      .expect(200)
      .expect('Content-Type', 'application/pdf');
    expect(
      Buffer.from(letter.body as Buffer)
        .subarray(0, 5)
        .toString('latin1'),
    ).toBe('%PDF-');
    const search = await agent.get(`/requests?key=${encodeURIComponent(key)}`);
    expect(search.text).toContain(`data-reference="${reference}"`);
    await request(sandbox.url).get(`/requests/${reference}`).expect(303);
  });

  it('a second process on the same database sees the same requests and sessions', async () => {
    const other = await startTestSandbox();
    try {
      const agent = request.agent(sandbox.url);
      const signIn = await agent
        .post('/sign-in')
        .type('form')
        .send({ username: DEMO_ACCOUNT.username, password: DEMO_ACCOUNT.password });
      await request(other.url).get('/sign-in/verify').set('Cookie', cookieOf(signIn)).expect(200);
    } finally {
      await other.close();
    }
  });
});
