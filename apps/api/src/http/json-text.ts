import type { Response } from 'express';

/** What `res.json` would send as the type: every JSON answer carries it. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Sends JSON already serialized (a stored or held answer) exactly as `res.json` sends the value it came from. */
export function sendJsonText(res: Response, text: string): void {
  res.set('Content-Type', JSON_CONTENT_TYPE).send(text);
}
