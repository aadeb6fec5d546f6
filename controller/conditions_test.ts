import assert from "node:assert/strict";
import {
  type Condition,
  ConditionError,
  findCondition,
  setCondition,
} from "./object_helpers.ts";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0, 750);
const T1 = T0 + 60_000;

Deno.test("setCondition() adds a condition with lastTransitionTime from now, in whole seconds", () => {
  const list = setCondition(undefined, {
    type: "Ready",
    status: "False",
    reason: "Creating",
    observedGeneration: 1,
  }, T0);
  assert.deepEqual(list, [{
    type: "Ready",
    status: "False",
    observedGeneration: 1,
    lastTransitionTime: "2026-01-01T12:00:00Z",
    reason: "Creating",
    message: "",
  }]);
  assert.equal(findCondition(list, "Ready"), list[0]);
  assert.equal(findCondition(list, "Available"), undefined);
  assert.equal(findCondition(undefined, "Ready"), undefined);
});

Deno.test("setCondition() moves lastTransitionTime only when the status changes", () => {
  const first = setCondition([], {
    type: "Ready",
    status: "False",
    reason: "Creating",
  }, T0);
  const same = setCondition(first, {
    type: "Ready",
    status: "False",
    reason: "Waiting",
    message: "2 of 3",
    observedGeneration: 2,
  }, new Date(T1));
  assert.equal(same[0].lastTransitionTime, "2026-01-01T12:00:00Z");
  assert.equal(same[0].reason, "Waiting");
  assert.equal(same[0].message, "2 of 3");
  assert.equal(same[0].observedGeneration, 2);
  const flipped = setCondition(same, {
    type: "Ready",
    status: "True",
    reason: "Reconciled",
    observedGeneration: 2,
  }, T1);
  assert.equal(flipped[0].lastTransitionTime, "2026-01-01T12:01:00Z");
  assert.equal(flipped[0].message, "");
  // The given lastTransitionTime wins over now on a transition.
  const given = setCondition(flipped, {
    type: "Ready",
    status: "Unknown",
    reason: "Lost",
    lastTransitionTime: "2025-05-05T05:05:05Z",
  }, T1);
  assert.equal(given[0].lastTransitionTime, "2025-05-05T05:05:05Z");
  assert.equal("observedGeneration" in given[0], false);
  assert.equal(first[0].reason, "Creating", "the input is unchanged");
});

Deno.test("setCondition() keeps the other conditions and their order", () => {
  const base: Condition[] = [
    {
      type: "A",
      status: "True",
      lastTransitionTime: "x",
      reason: "R",
      message: "",
    },
    {
      type: "B",
      status: "True",
      lastTransitionTime: "y",
      reason: "R",
      message: "",
    },
  ];
  const list = setCondition(
    base,
    { type: "A", status: "False", reason: "S" },
    T0,
  );
  assert.deepEqual(list.map((c) => [c.type, c.status]), [["A", "False"], [
    "B",
    "True",
  ]]);
  assert.equal(list[1], base[1]);
  const added = setCondition(
    list,
    { type: "C", status: "True", reason: "R" },
    T0,
  );
  assert.deepEqual(added.map((c) => c.type), ["A", "B", "C"]);
});

Deno.test("setCondition() refuses what the API server would, naming the field", () => {
  const field = (f: string) => (e: unknown) =>
    e instanceof ConditionError && e.field === f;
  const ok = { type: "Ready", status: "True" as const, reason: "Ok" };
  assert.throws(() => setCondition([], { ...ok, type: "" }, T0), field("type"));
  assert.throws(
    () => setCondition([], { ...ok, type: "not ready" }, T0),
    field("type"),
  );
  assert.throws(
    () => setCondition([], { ...ok, status: "true" as "True" }, T0),
    (e: unknown) =>
      field("status")(e) &&
      (e as Error).message ===
        'Invalid condition: status: must be True, False or Unknown, got "true"',
  );
  assert.throws(
    () => setCondition([], { ...ok, reason: "" }, T0),
    field("reason"),
  );
  assert.throws(
    () => setCondition([], { ...ok, reason: "not ok" }, T0),
    field("reason"),
  );
  assert.throws(
    () => setCondition([], { ...ok, observedGeneration: -1 }, T0),
    field("observedGeneration"),
  );
  assert.throws(() => setCondition([], ok, NaN), field("lastTransitionTime"));
  // Qualified types and reasons with digits, _ , and : are fine.
  assert.equal(
    setCondition(
      [],
      { ...ok, type: "example.com/Ready", reason: "A1_b,c:D" },
      T0,
    ).length,
    1,
  );
});
