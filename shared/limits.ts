/** Limits shared by every transport. One place, so the hosts and the tests agree. */
export const LIMITS = {
  /** Largest JSON input a single contract call may carry. */
  maxInputBytes: 8 * 1024 * 1024,
  /** Longest operation or event name. */
  maxNameLength: 128,
} as const;
