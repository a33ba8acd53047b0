import { Client } from 'pg';
import { type DataSource } from 'typeorm';
import { describeJobError } from './retry-policy';
import { type JobWakeups, type WorkerLogger } from './worker';

import { JOBS_NOTIFY_CHANNEL } from '@prior-auth/persistence-postgres';

/** Enqueuing a due job NOTIFYs this channel at commit (persistence); workers LISTEN on it. */
export { JOBS_NOTIFY_CHANNEL };

export interface PgJobWakeupsOptions {
  /** The database to LISTEN on, through a dedicated connection outside the pool. */
  connectionString: string;
  /** Sends NOTIFY through the pool. */
  dataSource: DataSource;
  logger: WorkerLogger;
  channel?: string;
  /** First delay before reconnecting a broken LISTEN connection; doubled up to 30 s. */
  reconnectDelayMs?: number;
}

/**
 * LISTEN/NOTIFY wake-ups. The listening connection is dedicated (a pooled one would be returned to the pool
 * and stop listening); when it breaks, the worker keeps polling and this reconnects with backoff, waking the
 * worker after each (re)connect since notifications sent meanwhile are lost.
 */
export class PgJobWakeups implements JobWakeups {
  private readonly channel: string;
  private client: Client | null = null;
  private onWake: () => void = () => undefined;
  private stopped = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private failures = 0;

  constructor(private readonly options: PgJobWakeupsOptions) {
    this.channel = options.channel ?? JOBS_NOTIFY_CHANNEL;
    if (!/^[a-z_][a-z0-9_]*$/.test(this.channel)) throw new Error('invalid notification channel name');
  }

  async start(onWake: () => void): Promise<void> {
    this.onWake = onWake;
    await this.connect();
  }

  async notify(): Promise<void> {
    await this.options.dataSource.query('SELECT pg_notify($1, $2)', [this.channel, '']);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({
      connectionString: this.options.connectionString,
      application_name: 'prior-auth-worker-listen',
    });
    let broken = false;
    const onBroken = (error?: Error) => {
      if (broken) return;
      broken = true;
      if (this.client === client) this.client = null;
      void client.end().catch(() => undefined);
      if (this.stopped) return;
      this.options.logger.warn(
        { error: error === undefined ? 'connection ended' : describeJobError(error) },
        'job notifications lost; polling until reconnected',
      );
      this.scheduleReconnect();
    };
    client.on('notification', () => this.onWake());
    client.on('error', onBroken);
    client.on('end', () => onBroken());
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      onBroken(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.failures = 0;
    this.onWake();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer !== null) return;
    this.failures += 1;
    const delay = Math.min((this.options.reconnectDelayMs ?? 500) * 2 ** (this.failures - 1), 30_000);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.connect();
    }, delay);
  }
}
