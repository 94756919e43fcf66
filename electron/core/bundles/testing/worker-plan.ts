/** The write plan the cross-process tests and their worker share. */

/** The slug worker `w` PUTs at `step`: every 10th step all workers race for one pair, otherwise two do. */
export function raceSlug(step: number, worker: number): string {
  return step % 10 === 0 ? `hot${step}` : `p${step}-${worker >> 1}`;
}
