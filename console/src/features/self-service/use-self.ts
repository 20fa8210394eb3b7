import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../../api.js';
import type { SelfToday } from './model.js';

/** A GET of the admin API, loaded again whenever `path` changes or `reload` is called. */
export function useLoaded<T>(path: string | null) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [serial, setSerial] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    setError(null);
    api<T>('GET', path)
      .then((body) => live && setData(body))
      .catch((caught: unknown) => live && setError(messageOf(caught)));
    return () => {
      live = false;
    };
  }, [path, serial]);
  const reload = useCallback(() => setSerial((n) => n + 1), []);
  return { data, error, reload };
}

/** GET /self: the person's employee, today's state and the web clock. */
export function useSelf() {
  return useLoaded<SelfToday>('/self');
}
