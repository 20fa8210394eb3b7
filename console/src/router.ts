import { useEffect, useState } from 'preact/hooks';

/**
 * Hash routing: `#/<screen>/<more>?<query>`. The fragment never reaches the server, so an invitation
 * token in `#/invite/<token>` stays out of URLs the server logs.
 */
export interface Route {
  /** The path segments after `#/`, decoded. */
  segments: string[];
  query: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '');
  const [path = '', query = ''] = raw.split('?', 2);
  const segments = path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  return { segments, query: new URLSearchParams(query) };
}

export function hrefOf(segments: string[], query?: Record<string, string | undefined>): string {
  const path = segments.map(encodeURIComponent).join('/');
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value) params.set(key, value);
  const search = params.toString();
  return `#/${path}${search ? `?${search}` : ''}`;
}

export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (options.replace) {
    history.replaceState(null, '', href);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else if (location.hash === href) {
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    location.hash = href;
  }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseHash(location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
