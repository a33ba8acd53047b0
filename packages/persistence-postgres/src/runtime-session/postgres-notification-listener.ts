import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { translateDatabaseError } from '../database/database-errors';

const RECONNECT_DELAY_MS = 1_000;

/**
 * LISTENs on `channel` over one connection of its own and calls `onPayload` with each notification's payload
 * (live frames and live input, docs/decisions/0033-live-browser-sessions.md and 0038). A lost connection is
 * replaced after a pause: what was notified meanwhile is read on the next notification or by the caller's own
 * periodic check. Resolves once listening, with the function that stops it.
 */
export async function listenForNotifications(
  dataSource: DataSource,
  channel: string,
  applicationName: string,
  onPayload: (payload: string) => void,
): Promise<() => Promise<void>> {
  const connectionString = (dataSource.options as { url?: string }).url;
  if (!connectionString) throw new Error(`listening on ${channel} needs the database URL`);
  let stopped = false;
  let client: Client | null = null;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new Client({ connectionString, application_name: applicationName });
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (client === next) client = null;
      void next.end().catch(() => undefined);
      if (stopped) return;
      retry = setTimeout(() => void connect().catch(() => undefined), RECONNECT_DELAY_MS);
      retry.unref();
    };
    next.on('notification', (message) => {
      if (message.channel === channel && message.payload) onPayload(message.payload);
    });
    next.on('error', onLost);
    next.on('end', onLost);
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
    } catch (error) {
      onLost();
      throw error;
    }
    if (stopped) await next.end().catch(() => undefined);
    else client = next;
  };
  try {
    await connect();
  } catch (error) {
    stopped = true;
    clearTimeout(retry);
    throw translateDatabaseError(error);
  }
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const current = client;
    client = null;
    await current?.end().catch(() => undefined);
  };
}
