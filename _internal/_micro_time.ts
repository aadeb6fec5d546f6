/**
 * A `metav1.MicroTime` (RFC 3339 with microseconds): how Lease holders (the
 * elector, shard ring members) write their renewals.
 *
 * @module
 */

/**
 * The MicroTime for `ms` since the epoch. Only for people reading the
 * Lease: no holder compares these across replicas.
 */
export function microTime(ms: number): string {
  const iso = new Date(Math.floor(ms)).toISOString();
  const micros = String(Math.floor((ms % 1) * 1000)).padStart(3, "0");
  return `${iso.slice(0, -1)}${micros}Z`;
}
