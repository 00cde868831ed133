/**
 * SMS segment counting. The rule is shared with clients (the softphone counts as people type),
 * so it lives in the SDK and the server re-exports it: one implementation, one set of tests.
 */
export {
  SEGMENT_LIMITS,
  SMS_ENCODINGS,
  countSegments,
  isGsm7,
  segmentCount,
  splitSegments,
} from '@switchboard/sdk/segments';
export type { SegmentCount, SmsEncoding } from '@switchboard/sdk/segments';
