import { createHash } from 'node:crypto';
import { LIVE_INPUT_KEYS } from '@prior-auth/payer-portal';
import { escapeHtml } from '@prior-auth/platform';

const STYLE = [
  ':root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;color:#1b1f24;background:#f6f7f9}',
  'body{margin:0}',
  'header,main{max-width:72rem;margin:0 auto;padding:0 1rem}',
  'h1{font-size:1.4rem;margin:1rem 0 .25rem}',
  '.banner{padding:.5rem 1rem;border:2px solid #8a5a00;background:#fff4d6;border-radius:4px}',
  '#status{font-weight:600}',
  '#screen{display:block;max-width:100%;border:1px solid #c5cad3;background:#fff;min-height:8rem}',
  'code{font-family:ui-monospace,Menlo,Consolas,monospace}',
  '#screen[data-interactive]{cursor:pointer;outline:none}',
  '#screen[data-interactive]:focus{box-shadow:0 0 0 3px #2a6fdb}',
].join('\n');

/**
 * Follows the stream next to the page (`…/stream`): each `frame` event replaces the picture and names the page
 * it shows; `ended` (or a stream the API refuses) ends the view. Nothing here can send input.
 */
const SCRIPT = [
  "'use strict';",
  "const screen = document.getElementById('screen');",
  "const label = document.getElementById('page-label');",
  "const status = document.getElementById('status');",
  'const setState = (state, text) => { status.dataset.state = state; status.textContent = text; };',
  "const source = new EventSource(location.pathname.replace(/\\/+$/, '') + '/stream');",
  "source.addEventListener('frame', (event) => {",
  '  const frame = JSON.parse(event.data);',
  "  screen.src = 'data:' + frame.contentType + ';base64,' + frame.image;",
  '  screen.dataset.seq = String(frame.seq);',
  '  label.textContent = frame.page;',
  "  setState('live', 'Live');",
  '});',
  "source.addEventListener('ended', (event) => {",
  '  source.close();',
  '  const reason = JSON.parse(event.data).reason;',
  "  setState('ended', reason === 'expired' ? 'This live view has expired.' : 'The session has ended.');",
  '});',
  'source.onerror = () => {',
  "  if (source.readyState === EventSource.CLOSED) setState('ended', 'The live view is no longer available.');",
  "  else if (status.dataset.state !== 'ended') setState('reconnecting', 'Reconnecting…');",
  '};',
].join('\n');

/**
 * The interactive view's input (decision 0038): a click on the picture is sent as fractions of the picture's
 * shown size, a key pressed while the picture has focus as a named key or as text, to `…/input`, one at a time
 * and in order. The count of inputs the API accepted is kept on the picture (`data-sent`).
 */
const INPUT_SCRIPT = [
  "'use strict';",
  "const target = document.getElementById('screen');",
  "const inputUrl = location.pathname.replace(/\\/+$/, '') + '/input';",
  `const KEYS = ${JSON.stringify(LIVE_INPUT_KEYS)};`,
  'let queue = Promise.resolve();',
  'let sent = 0;',
  'const send = (input) => {',
  '  queue = queue.then(async () => {',
  "    const response = await fetch(inputUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(input) });",
  '    if (response.ok) { sent += 1; target.dataset.sent = String(sent); }',
  "    else document.getElementById('status').textContent = 'Input was refused (' + response.status + ').';",
  '  }).catch(() => undefined);',
  '};',
  "target.addEventListener('click', (event) => {",
  '  const box = target.getBoundingClientRect();',
  '  if (box.width === 0 || box.height === 0) return;',
  '  target.focus();',
  '  const x = Math.min(1, Math.max(0, (event.clientX - box.left) / box.width));',
  '  const y = Math.min(1, Math.max(0, (event.clientY - box.top) / box.height));',
  "  send({ kind: 'click', x, y });",
  '});',
  "target.addEventListener('keydown', (event) => {",
  '  if (event.ctrlKey || event.metaKey || event.altKey) return;',
  "  if (KEYS.includes(event.key)) send({ kind: 'key', key: event.key });",
  "  else if (event.key.length === 1) send({ kind: 'text', text: event.key });",
  '  else return;',
  '  event.preventDefault();',
  '});',
].join('\n');

const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** Only this page's own style and script; pictures arrive as data URLs; the stream is same-origin. */
export const LIVE_VIEW_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${hash(STYLE)}`,
  `script-src ${hash(SCRIPT)}`,
  'img-src data:',
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The interactive view's policy: the same, plus its input script; input goes to the same origin. */
export const INTERACTIVE_LIVE_VIEW_CONTENT_SECURITY_POLICY = LIVE_VIEW_CONTENT_SECURITY_POLICY.replace(
  `script-src ${hash(SCRIPT)}`,
  `script-src ${hash(SCRIPT)} ${hash(INPUT_SCRIPT)}`,
);

/**
 * The live view of a browser session at the payer portal: read-only (decision 0033), or interactive for the
 * operator of a manual handoff (decision 0038), whose clicks and keys on the picture go to the browser.
 */
export function liveViewPage(session: {
  id: string;
  authorizationId: string;
  startedAt: Date;
  interactive?: boolean;
}): string {
  const interactive = session.interactive === true;
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    interactive
      ? '<title>Interactive live view – payer portal session</title>'
      : '<title>Read-only live view – payer portal session</title>',
    `<style>${STYLE}</style>`,
    '</head>',
    `<body data-page="live-view" data-access="${interactive ? 'interactive' : 'read_only'}">`,
    '<header><h1>Payer portal session</h1></header>',
    '<main>',
    interactive
      ? '<p class="banner" role="status"><strong>Interactive live view.</strong> Click on the picture to act in the payer portal; while it has focus, what you type goes to the portal too.</p>'
      : '<p class="banner" role="status"><strong>Read-only live view.</strong> You are watching the service work at the payer portal; you cannot act in it.</p>',
    `<p>Case <code id="case-id">${escapeHtml(session.authorizationId)}</code> · session <code>${escapeHtml(session.id)}</code>, started ${escapeHtml(session.startedAt.toISOString())}.</p>`,
    '<p><span id="status" data-state="connecting" aria-live="polite">Connecting…</span> · Page: <code id="page-label"></code></p>',
    interactive
      ? '<img id="screen" data-interactive="true" tabindex="0" alt="The payer portal page as the browser shows it; click and type to act in it">'
      : '<img id="screen" alt="The payer portal page as the browser shows it">',
    '</main>',
    `<script>${SCRIPT}</script>`,
    ...(interactive ? [`<script>${INPUT_SCRIPT}</script>`] : []),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
