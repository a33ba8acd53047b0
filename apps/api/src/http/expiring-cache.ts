import { LRUCache } from 'lru-cache';

/**
 * Memoises async lookups per key for `ttlMs`, sharing one lookup between concurrent callers of a key. Only
 * values `keep` accepts are remembered: a negative answer is asked again next time, so what is added shows at
 * once.
 */
export function expiringCache<V extends object | boolean | null>(options: {
  ttlMs: number;
  max: number;
  keep: (value: V) => boolean;
}): (key: string, load: () => Promise<V>) => Promise<V> {
  const cache = new LRUCache<string, { value: V }>({ max: options.max, ttl: Math.max(1, options.ttlMs) });
  const pending = new Map<string, Promise<V>>();
  return (key, load) => {
    const cached = cache.get(key);
    if (cached) return Promise.resolve(cached.value);
    const inFlight = pending.get(key);
    if (inFlight) return inFlight;
    const loading = load()
      .then((value) => {
        if (options.keep(value)) cache.set(key, { value });
        return value;
      })
      .finally(() => pending.delete(key));
    pending.set(key, loading);
    return loading;
  };
}
