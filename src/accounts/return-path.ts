/**
 * Where a sign-in leads back to when a page sent the person to sign in (`suite`): a path of this
 * site only, in a shape no browser reads as another host (`//host`, `/\host`, a scheme), so that
 * the parameter can never make the service redirect anyone elsewhere.
 */
const LOCAL_PATH = /^\/[a-z0-9][a-z0-9/-]{0,100}(\?[A-Za-z0-9=_&-]{1,200})?$/;

/** The query parameter (and hidden field) that carries it. */
export const RETURN_PARAM = 'suite';

/** The return path `value` names, or undefined when it is missing or not one of ours. */
export function returnPathOf(value: unknown): string | undefined {
  return typeof value === 'string' && LOCAL_PATH.test(value) ? value : undefined;
}

/** `path` with the return path added as its `suite` query parameter. */
export function withReturnPath(path: string, returnPath: string | undefined): string {
  return returnPath ? `${path}?${RETURN_PARAM}=${encodeURIComponent(returnPath)}` : path;
}
