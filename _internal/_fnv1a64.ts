/**
 * FNV-1a 64 over a string's UTF-8 bytes: the hash KEP-5866's
 * `shardRange()` applies to `metadata.uid` or `metadata.namespace`, so that
 * a replica's ranges can be asked of the API server as they are checked
 * here. The 64-bit state is kept in four 16-bit limbs of plain numbers: a
 * BigInt per byte would cost more than the rest of an event's handling.
 *
 * @module
 */

/** A 64-bit hash as its two unsigned 32-bit halves. */
export interface Hash64 {
  /** Bits 63…32. */
  readonly hi: number;
  /** Bits 31…0. */
  readonly lo: number;
}

const encoder = new TextEncoder();

/** FNV-1a 64 of `text`'s UTF-8 encoding. */
export function fnv1a64(text: string): Hash64 {
  // The offset basis 0xcbf29ce484222325, lowest limb first.
  let h0 = 0x2325, h1 = 0x8422, h2 = 0x9ce4, h3 = 0xcbf2;
  const step = (byte: number) => {
    h0 ^= byte;
    // h × 0x100000001b3 mod 2⁶⁴: h × 0x1b3 plus h shifted left by 40 bits
    // (limb 2 gains limb 0 × 0x100, limb 3 gains limb 1 × 0x100).
    const r0 = h0 * 0x1b3;
    const r1 = h1 * 0x1b3 + (r0 >>> 16);
    const r2 = h2 * 0x1b3 + h0 * 0x100 + (r1 >>> 16);
    const r3 = h3 * 0x1b3 + h1 * 0x100 + (r2 >>> 16);
    h0 = r0 & 0xffff;
    h1 = r1 & 0xffff;
    h2 = r2 & 0xffff;
    h3 = r3 & 0xffff;
  };
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) {
    // uids and namespaces are ASCII: no encoder, no byte array.
    for (let i = 0; i < text.length; i++) step(text.charCodeAt(i));
  } else {
    for (const byte of encoder.encode(text)) step(byte);
  }
  return { hi: ((h3 << 16) | h2) >>> 0, lo: ((h1 << 16) | h0) >>> 0 };
}
