import { createHash } from 'node:crypto';
import { LIVE_INPUT_KEYS } from '@prior-auth/payer-portal';
import { escapeHtml } from '@prior-auth/platform';
import { MAX_LIVE_INPUT_PASTE_LENGTH, MAX_LIVE_INPUT_SCROLL_DELTA } from './live-input.request';

const STYLE = [
  ':root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;color:#1b1f24;background:#f6f7f9}',
  'body{margin:0}',
  'header,main{max-width:72rem;margin:0 auto;padding:0 1rem}',
  'h1{font-size:1.4rem;margin:1rem 0 .25rem}',
  '.banner{padding:.5rem 1rem;border:2px solid #8a5a00;background:#fff4d6;border-radius:4px}',
  '#status{font-weight:600}',
  '#screen{display:block;max-width:100%;border:1px solid #c5cad3;background:#fff;min-height:8rem}',
  'code{font-family:ui-monospace,Menlo,Consolas,monospace}',
  '#screen[data-interactive]{cursor:pointer;outline:none;touch-action:none;user-select:none}',
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
 * shown size, a key pressed while the picture has focus as a named key or as text, a wheel turn over it as a
 * scroll, a press moved past a few pixels as a drag (`pointer` down, moves, up), a paste while it has focus as the
 * clipboard's plain text. Inputs go to `…/input` one at a time and in order; scrolls and drag moves waiting
 * behind a request still in flight are merged into one, so a busy wheel or mouse sends a few inputs a second,
 * not one per event. The count of inputs the API accepted is kept on the picture (`data-sent`).
 */
const INPUT_SCRIPT = [
  "'use strict';",
  "const target = document.getElementById('screen');",
  "const inputUrl = location.pathname.replace(/\\/+$/, '') + '/input';",
  `const KEYS = ${JSON.stringify(LIVE_INPUT_KEYS)};`,
  `const MAX_DELTA = ${MAX_LIVE_INPUT_SCROLL_DELTA};`,
  `const MAX_PASTE = ${MAX_LIVE_INPUT_PASTE_LENGTH};`,
  'const DRAG_PX = 4;',
  'const waiting = [];',
  'let sending = false;',
  'let sent = 0;',
  "const refused = (text) => { document.getElementById('status').textContent = text; };",
  'const pump = async () => {',
  '  if (sending) return;',
  '  sending = true;',
  '  while (waiting.length > 0) {',
  '    const input = waiting.shift();',
  '    try {',
  "      const response = await fetch(inputUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(input) });",
  '      if (response.ok) { sent += 1; target.dataset.sent = String(sent); }',
  "      else refused('Input was refused (' + response.status + ').');",
  '    } catch {}',
  '  }',
  '  sending = false;',
  '};',
  'const clamp = (n) => Math.min(MAX_DELTA, Math.max(-MAX_DELTA, n));',
  'const send = (input) => {',
  '  const last = waiting[waiting.length - 1];',
  "  if (last && last.kind === 'scroll' && input.kind === 'scroll') {",
  '    Object.assign(last, { x: input.x, y: input.y, deltaX: clamp(last.deltaX + input.deltaX), deltaY: clamp(last.deltaY + input.deltaY) });',
  "  } else if (last && last.kind === 'pointer' && last.phase === 'move' && input.kind === 'pointer' && input.phase === 'move') {",
  '    Object.assign(last, { x: input.x, y: input.y });',
  '  } else waiting.push(input);',
  '  void pump();',
  '};',
  'const at = (event) => {',
  '  const box = target.getBoundingClientRect();',
  '  if (box.width === 0 || box.height === 0) return null;',
  '  return {',
  '    x: Math.min(1, Math.max(0, (event.clientX - box.left) / box.width)),',
  '    y: Math.min(1, Math.max(0, (event.clientY - box.top) / box.height)),',
  '  };',
  '};',
  // A press that moves is a drag, sent from where it started; one that does not stays a click.
  'let press = null;',
  'let dragged = false;',
  "target.addEventListener('pointerdown', (event) => {",
  '  if (event.button !== 0) return;',
  '  const point = at(event);',
  '  if (point === null) return;',
  '  press = { point, clientX: event.clientX, clientY: event.clientY, dragging: false };',
  '  dragged = false;',
  '  target.setPointerCapture(event.pointerId);',
  '});',
  "target.addEventListener('pointermove', (event) => {",
  '  if (press === null) return;',
  '  const point = at(event);',
  '  if (point === null) return;',
  '  if (!press.dragging) {',
  '    if (Math.hypot(event.clientX - press.clientX, event.clientY - press.clientY) < DRAG_PX) return;',
  '    press.dragging = true;',
  '    target.focus();',
  "    send({ kind: 'pointer', phase: 'down', ...press.point });",
  '  }',
  "  send({ kind: 'pointer', phase: 'move', ...point });",
  '});',
  'const release = (event) => {',
  '  if (press === null) return;',
  '  const point = at(event) ?? press.point;',
  '  if (press.dragging) {',
  '    dragged = true;',
  "    send({ kind: 'pointer', phase: 'up', ...point });",
  '  }',
  '  press = null;',
  '};',
  "target.addEventListener('pointerup', release);",
  "target.addEventListener('pointercancel', release);",
  "target.addEventListener('dragstart', (event) => event.preventDefault());",
  "target.addEventListener('click', (event) => {",
  '  if (dragged) { dragged = false; return; }',
  '  const point = at(event);',
  '  if (point === null) return;',
  '  target.focus();',
  "  send({ kind: 'click', ...point });",
  '});',
  "target.addEventListener('wheel', (event) => {",
  '  const point = at(event);',
  '  if (point === null) return;',
  '  event.preventDefault();',
  // Lines and pages (deltaMode 1 and 2) as CSS pixels.
  '  const unit = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? target.clientHeight : 1;',
  "  send({ kind: 'scroll', ...point, deltaX: clamp(event.deltaX * unit), deltaY: clamp(event.deltaY * unit) });",
  '}, { passive: false });',
  "target.addEventListener('keydown', (event) => {",
  '  if (event.ctrlKey || event.metaKey || event.altKey) return;',
  "  if (KEYS.includes(event.key)) send({ kind: 'key', key: event.key });",
  "  else if (event.key.length === 1) send({ kind: 'text', text: event.key });",
  '  else return;',
  '  event.preventDefault();',
  '});',
  // The picture cannot take a paste itself: the document hears it while the picture has focus.
  "document.addEventListener('paste', (event) => {",
  '  if (document.activeElement !== target) return;',
  '  event.preventDefault();',
  "  const text = (event.clipboardData ? event.clipboardData.getData('text/plain') : '').replace(/[^\\t\\n\\r\\x20-\\x7e\\u00a0-\\uffff]/g, '');",
  '  if (text.length === 0) return;',
  "  if (text.length > MAX_PASTE) { refused('The paste is too long (at most ' + MAX_PASTE + ' characters).'); return; }",
  "  send({ kind: 'paste', text });",
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
 * operator of a manual handoff (decision 0038), whose clicks, scrolls, drags, keys and pastes go to the browser.
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
      ? '<p class="banner" role="status"><strong>Interactive live view.</strong> Click, scroll and drag on the picture to act in the payer portal; while it has focus, what you type or paste goes to the portal too.</p>'
      : '<p class="banner" role="status"><strong>Read-only live view.</strong> You are watching the service work at the payer portal; you cannot act in it.</p>',
    `<p>Case <code id="case-id">${escapeHtml(session.authorizationId)}</code> · session <code>${escapeHtml(session.id)}</code>, started ${escapeHtml(session.startedAt.toISOString())}.</p>`,
    '<p><span id="status" data-state="connecting" aria-live="polite">Connecting…</span> · Page: <code id="page-label"></code></p>',
    interactive
      ? '<img id="screen" data-interactive="true" tabindex="0" draggable="false" alt="The payer portal page as the browser shows it; click, scroll, drag, type and paste to act in it">'
      : '<img id="screen" alt="The payer portal page as the browser shows it">',
    '</main>',
    `<script>${SCRIPT}</script>`,
    ...(interactive ? [`<script>${INPUT_SCRIPT}</script>`] : []),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
