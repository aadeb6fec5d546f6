import assert from "node:assert/strict";
import {
  formatLabelSelector,
  LabelSelector,
  LabelSelectorError,
} from "./label_selector.ts";

function sel(s: string): LabelSelector {
  return new LabelSelector(s);
}

function assertInvalid(
  selector: string,
  expected: { position?: number; message?: RegExp },
): void {
  assert.throws(
    () => new LabelSelector(selector),
    (err: unknown) => {
      assert.ok(err instanceof LabelSelectorError, String(err));
      assert.equal(err.name, "LabelSelectorError");
      assert.equal(err.selector, selector);
      assert.ok(
        err.message.includes(JSON.stringify(selector)),
        `message names the selector: ${err.message}`,
      );
      if (expected.position !== undefined) {
        assert.equal(err.position, expected.position, err.message);
      }
      if (expected.message) assert.match(err.message, expected.message);
      assert.ok(!err.message.endsWith("."), "no final period");
      return true;
    },
  );
}

Deno.test("LabelSelector equality with = and ==", () => {
  for (const s of ["app=web", "app==web", " app = web "]) {
    const x = sel(s);
    assert.ok(x.matches({ app: "web" }), s);
    assert.ok(x.matches({ app: "web", other: "x" }), s);
    assert.ok(!x.matches({ app: "api" }), s);
    assert.ok(!x.matches({}), s);
    assert.ok(!x.matches(undefined), s);
    assert.equal(x.toString(), "app=web");
  }
});

Deno.test("LabelSelector inequality also matches a missing label", () => {
  const x = sel("app!=web");
  assert.ok(!x.matches({ app: "web" }));
  assert.ok(x.matches({ app: "api" }));
  assert.ok(x.matches({}));
  assert.ok(x.matches(undefined));
  assert.equal(x.toString(), "app!=web");
});

Deno.test("LabelSelector in and notin", () => {
  const inSel = sel("tier in (web, api)");
  assert.ok(inSel.matches({ tier: "web" }));
  assert.ok(inSel.matches({ tier: "api" }));
  assert.ok(!inSel.matches({ tier: "db" }));
  assert.ok(!inSel.matches({}));
  assert.equal(inSel.toString(), "tier in (api,web)");

  const notIn = sel("tier notin (canary)");
  assert.ok(notIn.matches({ tier: "web" }));
  assert.ok(notIn.matches({}));
  assert.ok(!notIn.matches({ tier: "canary" }));
  assert.equal(notIn.toString(), "tier notin (canary)");
});

Deno.test("LabelSelector exists and does not exist", () => {
  const exists = sel("app");
  assert.ok(exists.matches({ app: "" }));
  assert.ok(!exists.matches({ other: "x" }));
  const missing = sel("! app");
  assert.ok(missing.matches({ other: "x" }));
  assert.ok(missing.matches(undefined));
  assert.ok(!missing.matches({ app: "web" }));
  assert.equal(missing.toString(), "!app");
});

Deno.test("LabelSelector greater than and less than compare integers", () => {
  const gt = sel("replicas>2");
  assert.ok(gt.matches({ replicas: "3" }));
  assert.ok(!gt.matches({ replicas: "2" }));
  assert.ok(!gt.matches({ replicas: "many" }));
  assert.ok(!gt.matches({}));
  const lt = sel("replicas<2");
  assert.ok(lt.matches({ replicas: "-1" }));
  assert.ok(!lt.matches({ replicas: "2" }));
  assertInvalid("replicas>two", { position: 9, message: /integer/ });
});

Deno.test("LabelSelector terms are all required and printed sorted", () => {
  const x = sel("tier in (web),app=shop,!legacy,env");
  assert.ok(x.matches({ tier: "web", app: "shop", env: "prod" }));
  assert.ok(!x.matches({ tier: "web", app: "shop" }));
  assert.ok(!x.matches({ tier: "web", app: "shop", env: "p", legacy: "1" }));
  assert.equal(x.toString(), "app=shop,env,!legacy,tier in (web)");
  assert.equal(sel(x.toString()).toString(), x.toString());
  assert.deepEqual(x.requirements.map((r) => r.operator), [
    "Equals",
    "Exists",
    "DoesNotExist",
    "In",
  ]);
});

Deno.test("LabelSelector empty selects everything", () => {
  for (const s of ["", "   "]) {
    const x = sel(s);
    assert.ok(x.isEmpty);
    assert.ok(x.matches(undefined));
    assert.ok(x.matches({ a: "b" }));
    assert.equal(x.toString(), "");
  }
  assert.ok(!sel("a").isEmpty);
});

Deno.test("LabelSelector accepts prefixed keys and an empty value", () => {
  const x = sel("app.kubernetes.io/name=web,example.com/flag=");
  assert.ok(
    x.matches({ "app.kubernetes.io/name": "web", "example.com/flag": "" }),
  );
  assert.ok(
    !x.matches({ "app.kubernetes.io/name": "web", "example.com/flag": "x" }),
  );
});

Deno.test("LabelSelector ignores inherited properties of the label map", () => {
  assert.ok(!sel("constructor").matches({}));
  assert.ok(sel("!toString").matches({}));
});

Deno.test("LabelSelector rejects malformed selectors with a position", () => {
  assertInvalid("app in (web", { position: 11, message: /unbalanced/ });
  assertInvalid("app in web", { position: 7, message: /expected '\('/ });
  assertInvalid("app in ()", { position: 8, message: /at least one value/ });
  assertInvalid("app notin ( )", {
    position: 12,
    message: /at least one value/,
  });
  assertInvalid("=web", { position: 0, message: /label key/ });
  assertInvalid("app=web,", { position: 8, message: /label key/ });
  assertInvalid("app=web,,x", { position: 8, message: /label key/ });
  assertInvalid("app=(web)", { position: 4, message: /expected a value/ });
  assertInvalid("app ~ web", { position: 4, message: /unknown operator "~"/ });
  assertInvalid("app web", { position: 4, message: /unknown operator "web",/ });
  assertInvalid("app in (a b)", {
    position: 10,
    message: /expected ',' or '\)'/,
  });
  assertInvalid("!app=web", { position: 4 });
  assertInvalid("app=web)", { position: 7 });
  assertInvalid("-bad=x", { position: 0, message: /key "-bad"/ });
  assertInvalid("a/b/c=x", { position: 0 });
  assertInvalid("Upper.Case/x=1", { position: 0, message: /prefix/ });
  assertInvalid(`a=${"v".repeat(64)}`, { position: 2, message: /63/ });
  assertInvalid("a=bad!", { position: 5 });
  assertInvalid("a in (ok,-bad)", { position: 9, message: /value "-bad"/ });
});

Deno.test("LabelSelector rejects an unknown operator token", () => {
  assertInvalid("a in (x) b", { position: 9 });
  // "in" as an operator needs a list; "=" needs a value.
  assertInvalid("a in", { position: 4, message: /expected '\('/ });
  assertInvalid("a > ", { position: 4, message: /expected a value/ });
});

Deno.test("LabelSelector.fromObject combines matchLabels and matchExpressions", () => {
  const x = LabelSelector.fromObject({
    matchLabels: { app: "web" },
    matchExpressions: [
      { key: "tier", operator: "In", values: ["b", "a", "b"] },
      { key: "canary", operator: "DoesNotExist" },
      { key: "env", operator: "Exists" },
      { key: "zone", operator: "NotIn", values: ["x"] },
    ],
  });
  assert.equal(
    x.toString(),
    "app=web,!canary,env,tier in (a,b),zone notin (x)",
  );
  assert.ok(x.matches({ app: "web", tier: "a", env: "p" }));
  assert.ok(!x.matches({ app: "web", tier: "a", env: "p", zone: "x" }));
  assert.ok(LabelSelector.fromObject({}).isEmpty);
  assert.ok(LabelSelector.fromObject({ matchLabels: {} }).matches(undefined));
});

Deno.test("LabelSelector.fromObject rejects invalid objects", () => {
  const bad: [unknown, RegExp][] = [
    [
      { matchExpressions: [{ key: "a", operator: "In" }] },
      /matchExpressions\[0\]/,
    ],
    [
      { matchExpressions: [{ key: "a", operator: "In", values: [] }] },
      /at least one value/,
    ],
    [
      { matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] },
      /takes no values/,
    ],
    [
      { matchExpressions: [{ key: "a", operator: "Equals", values: ["x"] }] },
      /unknown operator "Equals"/,
    ],
    [{ matchExpressions: [{ key: "-a", operator: "Exists" }] }, /key "-a"/],
    [{ matchLabels: { a: "bad value" } }, /matchLabels\["a"\]/],
    [{ matchLabels: { a: 1 } }, /string value/],
    [{ matchExpressions: {} }, /expected an array/],
  ];
  for (const [object, message] of bad) {
    assert.throws(
      () => LabelSelector.fromObject(object as never),
      (err: unknown) => {
        assert.ok(err instanceof LabelSelectorError);
        assert.match(err.message, message);
        assert.equal(err.selector, JSON.stringify(object));
        return true;
      },
      JSON.stringify(object),
    );
  }
});

Deno.test("formatLabelSelector passes valid strings through and renders objects", () => {
  assert.equal(formatLabelSelector(" app = web "), " app = web ");
  assert.equal(formatLabelSelector(""), "");
  assert.equal(
    formatLabelSelector({ matchLabels: { b: "2", a: "1" } }),
    "a=1,b=2",
  );
  assert.throws(() => formatLabelSelector("a in (x"), LabelSelectorError);
  assert.throws(
    () =>
      formatLabelSelector({ matchExpressions: [{ key: "a", operator: "In" }] }),
    LabelSelectorError,
  );
  assert.throws(() => formatLabelSelector(42 as never), LabelSelectorError);
});
