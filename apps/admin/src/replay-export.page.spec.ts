import { renderReplayExport } from './replay-export.page';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

describe('renderReplayExport', () => {
  const html = renderReplayExport('auth_<x>', [
    {
      runtimeSessionId: 'rs_one',
      entries: [
        {
          kind: 'frame',
          capturedAt: at(0),
          page: '/sign-in"><script>',
          contentType: 'image/jpeg',
          bytes: Buffer.from([0xff, 0xd8, 0xff, 0xd9]),
        },
        { kind: 'gap', at: at(500), reason: 'customer_sign_in' },
      ],
    },
    {
      runtimeSessionId: 'rs_two',
      entries: [{ kind: 'gap', at: at(9_000), reason: 'manual_handoff' }],
    },
  ]);

  it('puts every frame in the page as a data: URI with its capture time and page path, escaped', () => {
    expect(html).toContain('src="data:image/jpeg;base64,/9j/2Q=="');
    expect(html).toContain(`data-at="${at(0).toISOString()}"`);
    expect(html).toContain('/sign-in&quot;&gt;&lt;script&gt;');
    expect(html).not.toContain('/sign-in"><script>');
    expect(html).toContain('Replay of case auth_&lt;x&gt;');
  });

  it('shows why frames are missing where a person had the page', () => {
    expect(html).toContain('data-gap="customer_sign_in"');
    expect(html).toContain('gap: customer sign-in');
    expect(html).toContain('gap: manual handoff');
    expect(html.indexOf('rs_one')).toBeLessThan(html.indexOf('rs_two'));
  });

  it('loads nothing from anywhere: its policy allows only data: images and its own style and script', () => {
    expect(html).toContain(`default-src 'none'; img-src data:;`);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(html).not.toMatch(/<(link|iframe|object)\b/);
    for (const control of ['play', 'prev', 'next']) expect(html).toContain(`id="${control}"`);
  });
});
