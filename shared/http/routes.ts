// Owns the API's routes, shared by the local server and the CDK stack so the two cannot disagree.

export type RouteFunction = 'start' | 'get';

export interface Route {
  method: 'GET' | 'POST';
  /** In API Gateway's syntax, `{name}` matching one path segment. */
  path: string;
  function: RouteFunction;
}

/** The placement report (an addition): served by the get function, which tells it apart by its route key. */
export const REPORT_ROUTE: Route = {
  method: 'GET',
  path: '/api/spam-check/{check_id}/report',
  function: 'get',
};

/** Two checks compared (an addition): served by the get function too, as it reads checks as get does. */
export const COMPARE_ROUTE: Route = {
  method: 'GET',
  path: '/api/spam-check/compare',
  function: 'get',
};

/** The scope's archived checks, newest first (an addition): served by the get function, which reads as get does. */
export const HISTORY_ROUTE: Route = {
  method: 'GET',
  path: '/api/spam-check/history',
  function: 'get',
};

export const ROUTES: readonly Route[] = [
  { method: 'POST', path: '/api/spam-check/start', function: 'start' },
  { method: 'GET', path: '/api/spam-check/{check_id}', function: 'get' },
  REPORT_ROUTE,
  COMPARE_ROUTE,
  HISTORY_ROUTE,
];

export const routeKeyOf = (route: Route): string => `${route.method} ${route.path}`;

const segmentsOf = (path: string) => path.split('/');

/** Matches as API Gateway does: literal segments first, then `{param}` against exactly one non-empty segment. */
const matchPath = (template: string, path: string): Record<string, string> | undefined => {
  const want = segmentsOf(template);
  const got = segmentsOf(path);
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, segment] of want.entries()) {
    const actual = got[index] ?? '';
    const param = /^\{(\w+)\}$/.exec(segment)?.[1];
    if (param) {
      if (actual === '') return undefined;
      params[param] = actual;
    } else if (segment !== actual) return undefined;
  }
  return params;
};

export interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string>;
}

/** The route for a request; literal routes win over templated ones, as in API Gateway. */
export const findRoute = (method: string, path: string): RouteMatch | undefined => {
  const candidates = ROUTES.filter((route) => route.method === method)
    .map((route) => ({ route, pathParameters: matchPath(route.path, path) }))
    .filter((match): match is RouteMatch => match.pathParameters !== undefined)
    .sort((a, b) => Object.keys(a.pathParameters).length - Object.keys(b.pathParameters).length);
  return candidates[0];
};

/** Methods that some route accepts for this path, for a 405's Allow header. */
export const allowedMethods = (path: string): string[] =>
  ROUTES.filter((route) => matchPath(route.path, path) !== undefined).map((route) => route.method);
