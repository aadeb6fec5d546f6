import assert from "node:assert/strict";
import type { KubeObject } from "../types.ts";
import {
  BatchBuilder,
  type ChangeBatch,
  mergeChangeBatches,
} from "./change_batch.ts";

function obj(name: string, rv: string, uid = `uid-${name}`): KubeObject {
  return {
    metadata: { namespace: "shop", name, resourceVersion: rv, uid },
  };
}

const key = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;

/** What a batch says, as `name@rv` per kind (modified: `prev→cur`). */
function described(batch: ChangeBatch) {
  const id = (o: KubeObject) =>
    `${o.metadata.name}@${o.metadata.resourceVersion}`;
  return {
    counts: [batch.created, batch.modified, batch.deleted],
    created: batch.objects.created.map(id),
    modified: batch.objects.modified.map((m) =>
      `${id(m.previous)}→${id(m.current)}`
    ),
    deleted: batch.objects.deleted.map(id),
  };
}

function builder() {
  const b = new BatchBuilder();
  let records = 0;
  b.onRecord = () => records++;
  return { b, records: () => records };
}

Deno.test("BatchBuilder coalesces each object's changes into one entry", () => {
  const { b, records } = builder();
  // created → modified: one created, the latest version.
  b.created("shop", "a", obj("a", "1"));
  b.modified("shop", "a", obj("a", "1"), obj("a", "2"));
  // created → deleted: nothing.
  b.created("shop", "b", obj("b", "3"));
  b.deleted("shop", "b", obj("b", "3"));
  // modified → modified: the first previous, the latest current.
  b.modified("shop", "c", obj("c", "10"), obj("c", "4"));
  b.modified("shop", "c", obj("c", "4"), obj("c", "5"));
  // modified → deleted: deleted, as last stored.
  b.modified("shop", "d", obj("d", "11"), obj("d", "6"));
  b.deleted("shop", "d", obj("d", "6"));
  // deleted → created with a new uid: a delete and a create.
  b.deleted("shop", "e", obj("e", "12"));
  b.created("shop", "e", obj("e", "7", "uid-e2"));
  // deleted → created with the same uid: a modification.
  b.deleted("shop", "f", obj("f", "13"));
  b.created("shop", "f", obj("f", "8"));
  // Replaced while nobody watched (a relist sees another uid): the same.
  b.modified("shop", "g", obj("g", "14"), obj("g", "9", "uid-g2"));
  assert.equal(records(), 13, "one record per change");
  assert.equal(b.isEmpty, false);

  const batch = b.take(false);
  assert.deepEqual(described(batch), {
    counts: [3, 2, 3],
    created: ["a@2", "e@7", "g@9"],
    modified: ["c@10→c@5", "f@13→f@8"],
    deleted: ["d@6", "e@12", "g@14"],
  });
  assert.equal(batch.total, 8);
  assert.equal(batch.isInitialSync, false);
  assert.ok(Object.isFrozen(batch) && Object.isFrozen(batch.objects));
  assert.equal(b.isEmpty, true, "taking starts an empty batch");
  assert.deepEqual(described(b.take(false)).counts, [0, 0, 0]);
});

Deno.test("BatchBuilder holds at most one entry per object, in order of first change", () => {
  const { b } = builder();
  for (let rv = 1; rv <= 100; rv++) {
    b.modified("shop", "a", obj("a", String(rv)), obj("a", String(rv + 1)));
    b.modified("shop", "b", obj("b", String(rv)), obj("b", String(rv + 1)));
  }
  const batch = b.take(false);
  assert.deepEqual(described(batch), {
    counts: [0, 2, 0],
    created: [],
    modified: ["a@1→a@101", "b@1→b@101"],
    deleted: [],
  });
});

Deno.test("BatchBuilder keeps one entry for an object created and deleted over and over", () => {
  const { b } = builder();
  for (let i = 0; i < 50; i++) {
    b.created("shop", "a", obj("a", String(2 * i)));
    b.deleted("shop", "a", obj("a", String(2 * i)));
  }
  assert.equal(b.isEmpty, true, "came to nothing");
  b.created("shop", "a", obj("a", "100"));
  b.created("shop", "b", obj("b", "101"));
  assert.equal(b.isEmpty, false);
  assert.deepEqual(described(b.take(false)), {
    counts: [2, 0, 0],
    created: ["a@100", "b@101"],
    modified: [],
    deleted: [],
  });
});

Deno.test("BatchBuilder keeps no entry for an object created and deleted in the batch", () => {
  const { b, records } = builder();
  // Listed, then changed: entries for what the store held before the batch.
  b.createdInBulk(2);
  b.modified("shop", "kept", obj("kept", "1"), obj("kept", "2"));
  b.deleted("shop", "listed", obj("listed", "3"));
  b.created("shop", "new", obj("new", "4"));
  // A namespace's churn while the batch is not taken (another namespace
  // has not listed yet): every name that came and went.
  for (let i = 0; i < 1_000; i++) {
    b.created("shop", `tmp-${i}`, obj(`tmp-${i}`, String(10 + 2 * i)));
    b.modified(
      "shop",
      `tmp-${i}`,
      obj(`tmp-${i}`, String(10 + 2 * i)),
      obj(`tmp-${i}`, String(11 + 2 * i)),
    );
    b.deleted("shop", `tmp-${i}`, obj(`tmp-${i}`, String(11 + 2 * i)));
    b.created("gone", `tmp-${i}`, obj(`tmp-${i}`, String(10 + 2 * i)));
    b.deleted("gone", `tmp-${i}`, obj(`tmp-${i}`, String(10 + 2 * i)));
  }
  assert.equal(records(), 4 + 5_000, "one record per change");
  assert.equal(b.size, 3, "kept, listed and new; nothing for the churn");
  const batch = b.take(true);
  assert.deepEqual(described(batch), {
    counts: [3, 1, 1],
    created: ["new@4"],
    modified: ["kept@1→kept@2"],
    deleted: ["listed@3"],
  });
  assert.equal(b.size, 0);
});

Deno.test("BatchBuilder orders an object created, deleted and created again by its last creation", () => {
  const { b } = builder();
  b.created("shop", "x", obj("x", "1"));
  b.created("shop", "y", obj("y", "2"));
  b.deleted("shop", "x", obj("x", "1"));
  b.created("shop", "x", obj("x", "3", "uid-x2"));
  b.created("shop", "z", obj("z", "4"));
  b.deleted("shop", "z", obj("z", "4"));
  assert.equal(b.size, 2);
  assert.deepEqual(described(b.take(false)), {
    counts: [2, 0, 0],
    created: ["y@2", "x@3"],
    modified: [],
    deleted: [],
  });
});

Deno.test("BatchBuilder counts an initial list without listing it", () => {
  const { b, records } = builder();
  b.createdInBulk(0);
  assert.equal(b.isEmpty, true);
  assert.equal(records(), 0);
  b.createdInBulk(100_000);
  // A change after the list, in the same batch, is listed.
  b.modified("shop", "a", obj("a", "1"), obj("a", "2"));
  const batch = b.take(true);
  assert.equal(batch.isInitialSync, true);
  assert.deepEqual(described(batch), {
    counts: [100_000, 1, 0],
    created: [],
    modified: ["a@1→a@2"],
    deleted: [],
  });
});

Deno.test("mergeChangeBatches coalesces two batches as one would have been", () => {
  const first = new BatchBuilder();
  first.created("shop", "a", obj("a", "1"));
  first.modified("shop", "b", obj("b", "2"), obj("b", "3"));
  first.modified("shop", "c", obj("c", "4"), obj("c", "5"));
  first.deleted("shop", "e", obj("e", "6"));
  first.created("shop", "e", obj("e", "7", "uid-e2"));
  const second = new BatchBuilder();
  second.modified("shop", "a", obj("a", "1"), obj("a", "8"));
  second.modified("shop", "b", obj("b", "3"), obj("b", "9"));
  second.deleted("shop", "c", obj("c", "5"));
  second.created("shop", "d", obj("d", "10"));
  const merged = mergeChangeBatches(first.take(false), second.take(false));
  assert.deepEqual(described(merged), {
    counts: [3, 1, 2],
    // Order: the first batch's deleted, modified, created, then the second's.
    created: ["e@7", "a@8", "d@10"],
    modified: ["b@2→b@9"],
    deleted: ["e@6", "c@5"],
  });
  assert.deepEqual(
    merged.objects.created.map(key),
    ["shop/e", "shop/a", "shop/d"],
  );

  // Initial-sync counts add up; the flag sticks.
  const initial = new BatchBuilder();
  initial.createdInBulk(5);
  const later = new BatchBuilder();
  later.created("shop", "z", obj("z", "11"));
  const both = mergeChangeBatches(initial.take(true), later.take(false));
  assert.equal(both.isInitialSync, true);
  assert.deepEqual(described(both).counts, [6, 0, 0]);
  assert.deepEqual(described(both).created, ["z@11"]);
});
