import {
  type Clock,
  type DecisionPollFinding,
  type IdGenerator,
  type LiveInput,
  type LiveSessionFrames,
  type LiveSessionInputs,
  LIVE_SESSION_HEARTBEAT_MS,
  MANUAL_HANDOFF_TTL_MS,
  type PortalCase,
  type PortalRunKind,
  type ReplayGapReason,
  type RuntimeSessionLedger,
  type TenantScope,
} from '@prior-auth/domain';
import { type CDPSession, type Page } from 'playwright-core';
import { type RunReplays } from './replay-recorder';

/** The `provider` of runtime sessions that are a portal run's own browser, shown through live frames. */
export const BROWSER_RUNTIME_PROVIDER = 'browser';

/** A portal run being shown live: ended (and its frames dropped) when the run ends. */
export interface LiveRun {
  sessionId: string;
  /**
   * Keeps the run's page for an operator after the run (the portal demands a human, decision 0038): false when
   * it cannot be kept (no input channel, or the mark could not be written), and the run then ends as usual.
   * From this moment on the run's replay records nothing, only a gap marker with `reason` (decision 0045).
   */
  hold(reason?: ReplayGapReason): Promise<boolean>;
  /** Resolves once a held session is released (its manual handoff closed) or its hold runs out. */
  whenReleased(): Promise<void>;
  /** What the run, a decision poll, found: its replay is kept only when that matters (decision 0045). */
  found(finding: DecisionPollFinding): void;
  end(): Promise<void>;
}

/** Makes each portal run's browser page a live session others can watch (PlaywrightPayerPortal's hook). */
export interface LiveRunSessions {
  /** Never fails the run: a session that cannot be shown is reported and the run goes on unwatched. */
  begin(portalCase: PortalCase, page: Page, kind?: PortalRunKind): Promise<LiveRun | null>;
}

export interface ScreencastLiveSessionsOptions {
  ledger: RuntimeSessionLedger;
  frames: LiveSessionFrames;
  clock: Clock;
  ids: IdGenerator;
  /** At most one frame per this many milliseconds is published (default 250); the newest always follows. */
  minFrameIntervalMs?: number;
  /** How often the run looks whether a viewer wants its frames (default 1 s). */
  watchCheckMs?: number;
  /**
   * How long a page kept for an operator stays open at most (default: a manual handoff's lifetime, from the
   * moment the portal demanded a human).
   */
  holdMs?: number;
  /**
   * Where a person's input on an interactive view of a session arrives (decision 0038); without it, nothing
   * sent to a session reaches the page.
   */
  inputs?: LiveSessionInputs;
  /** How often this process beats for its live sessions (default LIVE_SESSION_HEARTBEAT_MS, decision 0039). */
  heartbeatMs?: number;
  /** Records every run's replay from its screencast, watched or not (decision 0045); none when absent. */
  replays?: RunReplays;
  /** Told when a session cannot be started or a frame not published (the run itself is unaffected). */
  onError?: (error: unknown) => void;
}

const SCREENCAST = { format: 'jpeg', quality: 60, maxWidth: 1100, maxHeight: 900 } as const;

interface ScreencastFrameEvent {
  data: string;
  sessionId: number;
  metadata?: { deviceWidth?: number; deviceHeight?: number };
}

/** The named keys a person may press on an interactive view; any other key arrives as text. */
export const LIVE_INPUT_KEYS = [
  'Enter',
  'Tab',
  'Backspace',
  'Delete',
  'Escape',
  'ArrowLeft',
  'ArrowRight',
  'ArrowUp',
  'ArrowDown',
  'Home',
  'End',
] as const;

/** What a process's live sessions cost it now: pages shown, and how many of them Chromium is screencasting. */
export interface LivePageCounts {
  /** Pages of this process's runs that are live sessions, running or held for a person. */
  pages: number;
  /** Of those, the pages whose screencast runs: watched, or recording their run's replay. */
  screencasts: number;
}

/**
 * Live sessions of portal runs (docs/decisions/0033-live-browser-sessions.md): each run's page becomes a
 * runtime session (a ledger row, provider `browser`) owned by this process. While a viewer wants it, Chromium's
 * screencast of the page (CDP `Page.startScreencast`) is published frame by frame through `LiveSessionFrames`,
 * throttled to the newest frame per interval; an unwatched run publishes nothing, and is screencast only while
 * its replay records (decision 0052). Ending the run ends the session in the ledger and tells the viewers.
 */
export class ScreencastLiveSessions implements LiveRunSessions {
  /** The sessions of this process that take input, by id: told when input for them arrives. */
  private readonly inputHandlers = new Map<string, () => void>();
  private inputWatch: Promise<() => Promise<void>> | null = null;
  /** The sessions this process owns and has not ended: it beats for them while it lives. */
  private readonly owned = new Set<string>();
  private heartbeat: NodeJS.Timeout | undefined;
  /** The sessions whose page Chromium is screencasting now. */
  private readonly casting = new Set<string>();

  constructor(private readonly options: ScreencastLiveSessionsOptions) {}

  /** How many pages this process shows, and screencasts (the worker's metrics). */
  counts(): LivePageCounts {
    return { pages: this.owned.size, screencasts: this.casting.size };
  }

  /** Stops listening for input and beating (the process is shutting down). */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    const watch = this.inputWatch;
    this.inputWatch = null;
    if (watch) await (await watch.catch(() => async () => undefined))();
  }

  /**
   * One LISTEN for the whole process, opened with its first session; a session whose input was announced takes
   * it. A failed LISTEN is retried with the next session (each session also looks every second).
   */
  private listenForInput(inputs: LiveSessionInputs): void {
    if (this.inputWatch !== null) return;
    const watch = inputs.watch((sessionId) => this.inputHandlers.get(sessionId)?.());
    this.inputWatch = watch;
    watch.catch((error: unknown) => {
      if (this.inputWatch === watch) this.inputWatch = null;
      this.options.onError?.(error);
    });
  }

  /**
   * One beat for all of this process's live sessions (decision 0039), one statement per interval: a sweep ends
   * the sessions of a process that stopped beating. A beat that fails is reported; the next one follows.
   */
  private own(sessionId: string): void {
    this.owned.add(sessionId);
    if (this.heartbeat !== undefined) return;
    this.heartbeat = setInterval(() => {
      if (this.owned.size === 0) return;
      this.options.ledger
        .beat([...this.owned], this.options.clock.now())
        .catch((error: unknown) => this.options.onError?.(error));
    }, this.options.heartbeatMs ?? LIVE_SESSION_HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  async begin(portalCase: PortalCase, page: Page, kind: PortalRunKind = 'other'): Promise<LiveRun | null> {
    const { ledger, frames, clock, ids } = this.options;
    const sessionId = ids.newId('rs');
    const scope = { organizationId: portalCase.organizationId, environment: portalCase.environment };
    try {
      await this.endOrphans(scope, portalCase.authorizationId);
      await ledger.create({
        scope,
        id: sessionId,
        authorizationId: portalCase.authorizationId,
        provider: BROWSER_RUNTIME_PROVIDER,
        status: 'active',
        createdAt: clock.now(),
      });
      // The first beat at once: a process dying right after this leaves a session the sweep recognizes.
      await ledger.beat([sessionId], clock.now());
    } catch (error) {
      this.options.onError?.(error);
      return null;
    }
    this.own(sessionId);
    const replay = this.options.replays?.start(portalCase, sessionId, kind) ?? null;

    const interval = this.options.minFrameIntervalMs ?? 250;
    let cdp: CDPSession | null = null;
    let pending: { bytes: Buffer; page: string } | null = null;
    let lastPublishedAt = 0;
    let timer: NodeJS.Timeout | undefined;
    let publishing: Promise<void> = Promise.resolve();
    let ended = false;

    const flush = () => {
      timer = undefined;
      const frame = pending;
      pending = null;
      if (frame === null) return;
      lastPublishedAt = Date.now();
      publishing = publishing.then(() =>
        frames
          .publish(sessionId, { ...frame, contentType: 'image/jpeg', capturedAt: clock.now() })
          .catch((error: unknown) => this.options.onError?.(error)),
      );
    };
    const offer = (frame: { bytes: Buffer; page: string }) => {
      if (ended) return;
      pending = frame;
      if (timer !== undefined) return;
      const wait = lastPublishedAt + interval - Date.now();
      if (wait <= 0) flush();
      else timer = setTimeout(flush, wait);
    };

    let watched = false;
    let checking = false;
    // The newest picture is kept here and published only while a viewer wants frames (watched_until, renewed by
    // each viewer).
    let newest: { bytes: Buffer; page: string } | null = null;
    // Chromium's screencast runs only while its frames have a use: a viewer wants them, or the run's replay is
    // recording (a hold stops the replay for good, decision 0045). Each paint it captures is scaled and encoded,
    // and a page held for a person may stay open for hours, its caret alone repainting twice a second
    // (docs/performance.md). Starting it sends the page's current picture at once, so a viewer is not left
    // without one.
    let recording = replay !== null;
    let changingCast: Promise<void> = Promise.resolve();
    const cast = (): Promise<void> => {
      changingCast = changingCast
        .then(async () => {
          const on = this.casting.has(sessionId);
          const wanted = !ended && (watched || recording);
          if (cdp === null || wanted === on) return;
          if (wanted) {
            await cdp.send('Page.startScreencast', SCREENCAST);
            this.casting.add(sessionId);
          } else {
            this.casting.delete(sessionId);
            await cdp.send('Page.stopScreencast');
          }
        })
        .catch((error: unknown) => {
          if (!ended) this.options.onError?.(error);
        });
      return changingCast;
    };
    const check = async () => {
      if (checking || ended) return;
      checking = true;
      try {
        const until = await frames.watchedUntil(sessionId);
        const now = until !== null && until.getTime() > clock.now().getTime();
        if (now && !watched && newest !== null) {
          watched = true;
          offer(newest);
        }
        watched = now;
        await cast();
      } catch (error) {
        if (!ended) this.options.onError?.(error);
      } finally {
        checking = false;
      }
    };
    let poll: NodeJS.Timeout | undefined;
    // The page's size in CSS pixels as the newest frame showed it: a viewer's pointer fractions map onto it.
    let shownSize: { width: number; height: number } | null = null;

    // Input from an interactive view (decision 0038), taken in order and dispatched to this page one at a time.
    const inputs = this.options.inputs;
    let taking = false;
    let takeAgain = false;
    // Whether a drag's button is down on the page: a move without it is a plain hover.
    let pressed = false;
    const dispatch = async (input: LiveInput) => {
      if (input.kind === 'key') {
        if ((LIVE_INPUT_KEYS as readonly string[]).includes(input.key)) await page.keyboard.press(input.key);
        return;
      }
      if (cdp === null) return;
      if (input.kind === 'text' || input.kind === 'paste') {
        await cdp.send('Input.insertText', { text: input.text });
        return;
      }
      const size = shownSize ?? page.viewportSize();
      if (size === null) return;
      const at = { x: input.x * size.width, y: input.y * size.height };
      const left = { button: 'left', clickCount: 1 } as const;
      if (input.kind === 'scroll') {
        await cdp.send('Input.dispatchMouseEvent', {
          type: 'mouseWheel',
          ...at,
          deltaX: input.deltaX,
          deltaY: input.deltaY,
        });
      } else if (input.kind === 'pointer') {
        if (input.phase === 'down') {
          await cdp.send('Input.dispatchMouseEvent', { type: 'mouseMoved', ...at });
          await cdp.send('Input.dispatchMouseEvent', { type: 'mousePressed', ...at, ...left, buttons: 1 });
          pressed = true;
        } else if (input.phase === 'move') {
          await cdp.send('Input.dispatchMouseEvent', {
            type: 'mouseMoved',
            ...at,
            ...(pressed ? { button: 'left', buttons: 1 } : {}),
          });
        } else if (pressed) {
          pressed = false;
          await cdp.send('Input.dispatchMouseEvent', { type: 'mouseReleased', ...at, ...left, buttons: 0 });
        }
      } else {
        await cdp.send('Input.dispatchMouseEvent', { type: 'mouseMoved', ...at });
        await cdp.send('Input.dispatchMouseEvent', { type: 'mousePressed', ...at, ...left, buttons: 1 });
        await cdp.send('Input.dispatchMouseEvent', { type: 'mouseReleased', ...at, ...left, buttons: 0 });
      }
    };
    const takeInput = async (): Promise<void> => {
      if (inputs === undefined || ended) return;
      if (taking) {
        takeAgain = true;
        return;
      }
      taking = true;
      try {
        do {
          takeAgain = false;
          for (const { input } of await inputs.take(sessionId)) {
            if (ended) return;
            await dispatch(input).catch((error: unknown) => this.options.onError?.(error));
          }
        } while (takeAgain && !ended);
      } catch (error) {
        if (!ended) this.options.onError?.(error);
      } finally {
        taking = false;
      }
    };
    if (inputs !== undefined) {
      this.inputHandlers.set(sessionId, () => void takeInput());
      this.listenForInput(inputs);
    }

    try {
      cdp = await page.context().newCDPSession(page);
      const session = cdp;
      session.on('Page.screencastFrame', (event: ScreencastFrameEvent) => {
        void session.send('Page.screencastFrameAck', { sessionId: event.sessionId }).catch(() => undefined);
        const shown = pathOf(page.url());
        // The blank page a run starts on (and browser error pages) are not the portal: nothing to show.
        if (shown === '') return;
        const { deviceWidth, deviceHeight } = event.metadata ?? {};
        if (deviceWidth && deviceHeight) shownSize = { width: deviceWidth, height: deviceHeight };
        newest = { bytes: Buffer.from(event.data, 'base64'), page: shown };
        replay?.frame(newest);
        if (watched) offer(newest);
      });
      await cast();
      poll = setInterval(() => {
        void check();
        // Input announced while the LISTEN connection was being replaced is taken here.
        void takeInput();
      }, this.options.watchCheckMs ?? 1_000);
      poll.unref();
      void check();
    } catch (error) {
      this.options.onError?.(error);
    }

    let heldUntil: Date | null = null;
    return {
      sessionId,
      hold: async (reason: ReplayGapReason = 'manual_handoff') => {
        // Before anything else: a person may act on the page as soon as it is held (decision 0045).
        replay?.gap(reason);
        recording = false;
        void cast();
        if (inputs === undefined || ended) return false;
        const until = new Date(clock.now().getTime() + (this.options.holdMs ?? MANUAL_HANDOFF_TTL_MS));
        try {
          await inputs.hold(sessionId, until);
          heldUntil = until;
          return true;
        } catch (error) {
          this.options.onError?.(error);
          return false;
        }
      },
      whenReleased: async () => {
        const until = heldUntil;
        if (until === null) return;
        const every = this.options.watchCheckMs ?? 1_000;
        while (!ended && !page.isClosed() && clock.now().getTime() < until.getTime()) {
          const session = await ledger.find(sessionId).catch((error: unknown) => {
            this.options.onError?.(error);
            return undefined;
          });
          if (session === null || session?.status === 'ended') return;
          await new Promise((resume) => setTimeout(resume, every));
        }
      },
      found: (finding) => replay?.found(finding),
      end: async () => {
        if (ended) return;
        clearInterval(poll);
        this.inputHandlers.delete(sessionId);
        this.owned.delete(sessionId);
        // The last picture still goes out to a viewer, so it sees where the run stopped.
        clearTimeout(timer);
        flush();
        ended = true;
        await changingCast;
        this.casting.delete(sessionId);
        await cdp?.send('Page.stopScreencast').catch(() => undefined);
        await cdp?.detach().catch(() => undefined);
        await publishing;
        await replay?.end();
        try {
          await ledger.end(sessionId, clock.now());
          await frames.close(sessionId);
          // What a person typed and the page never got (a password included) is not kept (decision 0039).
          await inputs?.discard(sessionId);
        } catch (error) {
          this.options.onError?.(error);
        }
      },
    };
  }

  /**
   * A case's portal runs normally follow one another, so a browser session of the case still marked live when
   * a new run starts belongs to a run that can no longer end it (its worker died): it is ended now, so the case
   * does not keep showing a live session nobody runs. Should two runs of a case ever overlap, the older one's
   * view just ends early (its own end still drops its frames). Stops at a session of another provider (a
   * manual handoff's).
   */
  private async endOrphans(scope: TenantScope, authorizationId: string): Promise<void> {
    for (;;) {
      const live = await this.options.ledger.findLive(scope, authorizationId);
      if (live === null || live.provider !== BROWSER_RUNTIME_PROVIDER) return;
      await this.options.ledger.end(live.id, this.options.clock.now());
      await this.options.frames.close(live.id);
      await this.options.inputs?.discard(live.id);
    }
  }
}

/** The page's path: what a viewer is told about where the run is (no query: it may carry case data). */
function pathOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.pathname : '';
  } catch {
    return '';
  }
}
