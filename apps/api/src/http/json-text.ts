import type { Response } from 'express';

/** What `res.json` would send as the type: every JSON answer carries it. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Statuses whose answers carry no body (express strips it, and its headers, for them). */
const BODILESS = new Set([204, 304]);

/**
 * Sends JSON already serialized (a stored or held answer, as text, as its UTF-8 bytes, or as UTF-8 parts in
 * order) exactly as `res.json` sends the value it came from.
 * An answer express would change (a conditional or HEAD request, which may become `304` or lose its body, or a
 * bodiless status) goes through express's `send`; any other is written straight out with its length, which is
 * what `send` does for it after parsing the type again and copying the text into a buffer. Parts are written
 * one after another in one go, never joined: a list's items are each held as bytes, and joining them cost as
 * much as sending them (docs/performance.md).
 */
export function sendJsonText(res: Response, text: string | Buffer | readonly Buffer[]): void {
  const { req } = res;
  if (
    req.method === 'HEAD' ||
    req.headers['if-none-match'] !== undefined ||
    req.headers['if-modified-since'] !== undefined ||
    BODILESS.has(res.statusCode)
  ) {
    res.set('Content-Type', JSON_CONTENT_TYPE).send(Array.isArray(text) ? Buffer.concat(text) : text);
    return;
  }
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  if (typeof text === 'string' || Buffer.isBuffer(text)) {
    res.setHeader('Content-Length', typeof text === 'string' ? Buffer.byteLength(text) : text.length);
    res.end(text);
    return;
  }
  const parts = text as readonly Buffer[];
  res.setHeader(
    'Content-Length',
    parts.reduce((length, part) => length + part.length, 0),
  );
  // Corked, the head and every part leave in one write when `end` uncorks.
  res.cork();
  for (const part of parts) res.write(part);
  res.end();
}
