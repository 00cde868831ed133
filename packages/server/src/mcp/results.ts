import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod';
import { ApiError, typeInWords } from '../domain/errors.ts';

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

/**
 * Arguments outside a tool's input schema, as the REST API answers a body outside its
 * schema: `422 validation_error` naming the field in `param`, in the same words
 * (`Unknown field 'text'.`, `Missing required field 'body'.`, `to must be a string.`).
 */
export function toolArgumentsError(error: z.ZodError, args: unknown): ApiError {
  const issue = error.issues[0];
  if (!issue) return new ApiError('validation_error', 'The arguments are invalid.');
  const path = issue.path.map(String).join('.');
  const given = issue.path.reduce<unknown>(
    (value, key) => (value as Record<PropertyKey, unknown> | undefined)?.[key],
    args,
  );
  if (issue.code === 'unrecognized_keys') {
    const field = [path, issue.keys[0]].filter(Boolean).join('.');
    return new ApiError('validation_error', `Unknown field '${field}'.`, { param: field });
  }
  if (issue.code === 'invalid_type' && given === undefined) {
    return new ApiError('validation_error', `Missing required field '${path}'.`, { param: path });
  }
  let rule: string;
  if (issue.code === 'invalid_type') {
    rule = `must be ${typeInWords(issue.expected)}`;
  } else if (issue.code === 'too_big' && issue.origin === 'string') {
    rule = `must be at most ${String(issue.maximum)} characters long`;
  } else {
    rule = issue.message;
  }
  const param = path || 'arguments';
  return new ApiError('validation_error', `${param} ${rule}.`, { param });
}
