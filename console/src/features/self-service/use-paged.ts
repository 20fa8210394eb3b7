import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../../api.js';

/**
 * A cursor-paged list of the admin API (`{items, nextCursor}`): the first page, then "Load more"
 * appends the next one (the page's `nextCursor` sent as `cursor`) until there is none. `reload` starts
 * again from the first page.
 */
export function usePaged<T>(path: string) {
  const [items, setItems] = useState<T[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [serial, setSerial] = useState(0);
  const page = useCallback(
    (cursor: string | null) =>
      api<{ items: T[]; nextCursor?: string | null }>(
        'GET',
        cursor === null
          ? path
          : `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`,
      ),
    [path],
  );
  useEffect(() => {
    let live = true;
    setError(null);
    page(null)
      .then((body) => {
        if (!live) return;
        setItems(body.items);
        setNext(body.nextCursor ?? null);
      })
      .catch((caught: unknown) => live && setError(messageOf(caught)));
    return () => {
      live = false;
    };
  }, [page, serial]);
  const loadMore = useCallback(async () => {
    if (next === null) return;
    setLoadingMore(true);
    try {
      const body = await page(next);
      setItems((had) => [...(had ?? []), ...body.items]);
      setNext(body.nextCursor ?? null);
    } catch (caught) {
      setError(messageOf(caught));
    } finally {
      setLoadingMore(false);
    }
  }, [next, page]);
  const reload = useCallback(() => setSerial((n) => n + 1), []);
  return { items, error, more: next !== null, loadingMore, loadMore, reload };
}
