import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '../domain/errors.ts';

/** Where a tool reports a failure that is not the caller's (the agent sees only `internal_error`). */
export type ToolErrorReporter = (error: unknown) => void;

/** A tool's resource, and whether it is the recorded answer of an earlier call with the same key. */
export interface ToolOutcome {
  resource: object;
  replayed?: boolean;
}

/** Marks a replayed answer, as the REST API's `Idempotent-Replayed` header does. */
export const REPLAYED_META_KEY = 'switchboard/idempotent-replayed';

/** The resource as JSON text (for models that read only text) and as structured content. */
export function resourceResult({ resource, replayed }: ToolOutcome): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(resource, null, 2) }],
    structuredContent: { ...resource },
    ...(replayed ? { _meta: { [REPLAYED_META_KEY]: true } } : {}),
  };
}

/**
 * A failed call as a tool result the model can read and act on: the API's error
 * body (`{error: {type, message, param?}}`) with `isError`, never a protocol
 * error. It carries no structuredContent, which clients would check against the
 * tool's output schema.
 */
export function errorResult(error: unknown, report: ToolErrorReporter): CallToolResult {
  let apiError: ApiError;
  if (error instanceof ApiError) {
    apiError = error;
  } else {
    report(error);
    apiError = new ApiError('internal_error', 'Something went wrong on our side. Retry the call.');
  }
  return {
    content: [{ type: 'text', text: JSON.stringify(apiError.toBody()) }],
    isError: true,
  };
}

/** Runs a tool's work and turns its outcome, or its failure, into the tool's result. */
export async function toolResult(
  work: () => Promise<ToolOutcome>,
  report: ToolErrorReporter,
): Promise<CallToolResult> {
  try {
    return resourceResult(await work());
  } catch (error) {
    return errorResult(error, report);
  }
}
