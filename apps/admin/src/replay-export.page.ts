import type { ReplayEntry, ReplayGapReason } from '@prior-auth/domain';
import { escapeHtml } from '@prior-auth/platform';

/** One run of a case's replay: its runtime session and its entries, oldest first. */
export interface ReplayExportRun {
  runtimeSessionId: string;
  entries: ReplayEntry[];
}

const GAP_TEXT: Record<ReplayGapReason, string> = {
  customer_sign_in: 'gap: customer sign-in (nothing is recorded while the customer signs in to the payer)',
  manual_handoff: 'gap: manual handoff (nothing is recorded while a person has the page)',
};

/** What a gap marker says, in the export and on the command line. */
export const gapText = (reason: ReplayGapReason): string => GAP_TEXT[reason];

const STYLE = `body{font:14px system-ui,sans-serif;margin:1.5rem;color:#1b1f24}
#player{position:sticky;top:0;background:#fff;padding:.5rem 0;border-bottom:1px solid #ccd}
#controls button{margin-right:.4rem}#caption{margin:.4rem 0;font-family:monospace}
ol{list-style:none;padding:0}li{margin:1rem 0}img{max-width:100%;border:1px solid #ccd}
.gap{padding:1rem;background:#fff4d6;border:1px dashed #b88a00}.run{font-weight:600;margin-top:2rem}
body.playing li:not(.current),body.stepping li:not(.current){display:none}`;

// Shows one entry at a time ("Show all" lists them); without the script every entry stays listed, oldest first.
const SCRIPT = `(function(){
var items=[].slice.call(document.querySelectorAll('li[data-at]'));var at=0;var timer=null;
var caption=document.getElementById('caption');var play=document.getElementById('play');
function show(i){at=Math.max(0,Math.min(items.length-1,i));items.forEach(function(el,n){el.classList.toggle('current',n===at)});
caption.textContent=(at+1)+' / '+items.length+'  '+items[at].getAttribute('data-at')+'  '+items[at].getAttribute('data-label');}
function stop(){if(timer!==null){clearTimeout(timer);timer=null}play.textContent='Play';}
function tick(){if(at>=items.length-1){stop();return}var now=Date.parse(items[at].getAttribute('data-at'));
var next=Date.parse(items[at+1].getAttribute('data-at'));show(at+1);
timer=setTimeout(tick,Math.max(200,Math.min(2000,next-now||1000)));}
play.addEventListener('click',function(){document.body.classList.add('stepping');if(timer!==null){stop()}else{play.textContent='Pause';if(at>=items.length-1)show(0);timer=setTimeout(tick,500)}});
document.getElementById('prev').addEventListener('click',function(){stop();document.body.classList.add('stepping');show(at-1)});
document.getElementById('next').addEventListener('click',function(){stop();document.body.classList.add('stepping');show(at+1)});
document.getElementById('all').addEventListener('click',function(){stop();document.body.classList.remove('stepping')});
if(items.length>0){document.body.classList.add('stepping');show(0)}})();`;

/**
 * A case's replay as one self-contained HTML file (docs/decisions/0045-portal-run-replays.md): every frame a
 * data: URI with its capture time and page path, gap markers where a person had the page, and a small
 * play/pause/step player. It loads nothing: its policy allows only its own inline style and script and
 * data: images.
 */
export function renderReplayExport(authorizationId: string, runs: readonly ReplayExportRun[]): string {
  const items: string[] = [];
  for (const run of runs) {
    items.push(`<li class="run">Run ${escapeHtml(run.runtimeSessionId)}</li>`);
    for (const entry of run.entries) {
      if (entry.kind === 'frame') {
        const at = entry.capturedAt.toISOString();
        const data = Buffer.from(entry.bytes).toString('base64');
        items.push(
          `<li class="frame" data-at="${at}" data-label="${escapeHtml(entry.page)}"><figure>` +
            `<img src="data:${escapeHtml(entry.contentType)};base64,${data}" alt="${escapeHtml(entry.page)} at ${at}">` +
            `<figcaption><time>${at}</time> ${escapeHtml(entry.page)}</figcaption></figure></li>`,
        );
      } else {
        const at = entry.at.toISOString();
        const text = escapeHtml(gapText(entry.reason));
        items.push(
          `<li class="gap" data-at="${at}" data-label="${text}" data-gap="${entry.reason}"><time>${at}</time> ${text}</li>`,
        );
      }
    }
  }
  const id = escapeHtml(authorizationId);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>Replay of ${id}</title><style>${STYLE}</style></head>
<body><h1>Replay of case ${id}</h1>
<p>Internal evidence: the portal runs of this case as recorded, at most one picture a second plus every page change. Not for the customer.</p>
<div id="player"><div id="controls"><button id="play" type="button">Play</button><button id="prev" type="button">Step back</button><button id="next" type="button">Step</button><button id="all" type="button">Show all</button></div><p id="caption"></p></div>
<ol id="entries">
${items.join('\n')}
</ol>
<script>${SCRIPT}</script>
</body></html>
`;
}
