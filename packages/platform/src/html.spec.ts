import { escapeHtml } from './html';

describe('escapeHtml', () => {
  it('escapes the five characters that can end element content or a quoted attribute', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });

  it('leaves other text as it is', () => {
    expect(escapeHtml('Case auth_123 · café')).toBe('Case auth_123 · café');
  });
});
