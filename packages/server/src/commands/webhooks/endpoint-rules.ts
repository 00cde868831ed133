import { validationError } from '../../domain/errors.ts';
import { requireNoNul } from '../../domain/text-rules.ts';
import { EVENT_TYPES } from '../record-event.ts';
import type { WebhookDeps } from '../context.ts';

/** Checks that `type` is in the event catalog; a `422` names `param` otherwise. */
export function checkEventType(type: string, param: string): string {
  if (!(EVENT_TYPES as readonly string[]).includes(type)) {
    throw validationError(param, `Unknown event type '${type}'. Known: ${EVENT_TYPES.join(', ')}.`);
  }
  return type;
}

/** Checks `events`: non-empty, each from the catalog, no repeats. Returns them. */
export function checkEventTypes(events: string[]): string[] {
  if (events.length === 0)
    throw validationError('events', 'events must name at least one event type.');
  events.forEach((type, i) => checkEventType(type, `events[${i}]`));
  return [...new Set(events)];
}

/** Checks that `url` is https and resolves to a public address (unless private ones are allowed). */
export async function checkEndpointUrl(url: string, deps: WebhookDeps): Promise<string> {
  const verdict = await deps.checkUrl(url);
  if (!verdict.ok) throw validationError('url', verdict.reason);
  return url;
}

/** Checks an endpoint's description, when one is given. */
export function checkDescription(description: string | null | undefined): void {
  requireNoNul(description, 'description');
}
