import { useEffect, useState } from 'preact/hooks';
import { parseRoute, type Route } from './routes.js';

/** The route of the current URL fragment, following its changes (the back button, a link). */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}
