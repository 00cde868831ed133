import type { CallRow } from '../store/repos/calls.ts';
import { isoTime } from './time.ts';

/** A call summary: the `data` of call events and a row of the call history. */
export interface CallView {
  id: string;
  object: 'call';
  from: string;
  to: string;
  direction: CallRow['direction'];
  status: CallRow['status'];
  startedAt: string;
  /** Whole seconds; 0 for a missed call. */
  duration: number;
}

/** Turns a call row into its public shape. */
export function presentCall(row: CallRow): CallView {
  return {
    id: row.id,
    object: 'call',
    from: row.from_phone,
    to: row.to_phone,
    direction: row.direction,
    status: row.status,
    startedAt: isoTime(row.started_at),
    duration: row.duration,
  };
}
