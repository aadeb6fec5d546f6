import assert from "node:assert/strict";
import { FieldSelector, FieldSelectorError } from "./field_selector.ts";
import { JsonPathError } from "./jsonpath.ts";

const ingress = {
  metadata: {
    name: "web",
    namespace: "shop",
    labels: { "app.kubernetes.io/name": "web", "a,b": "comma", "k=v": "eq" },
    generation: 3,
  },
  spec: {
    ingressClassName: "haproxy",
    paused: false,
    weight: 1.5,
    backend: { service: "web", port: 80 },
    rules: [{ host: "a.example" }, { host: "b.example" }],
    nothing: null,
  },
};

const matches = (selector: string, obj: unknown = ingress): boolean =>
  new FieldSelector(selector).matches(obj);

Deno.test("FieldSelector = and == require an equal rendered value", () => {
  assert.equal(matches("spec.ingressClassName=haproxy"), true);
  assert.equal(matches("spec.ingressClassName==haproxy"), true);
  assert.equal(matches("spec.ingressClassName=nginx"), false);
  assert.equal(matches("spec.ingressClassName==nginx"), false);
  assert.equal(matches("metadata.generation=3"), true);
  assert.equal(matches("metadata.generation=3.0"), false);
  assert.equal(matches("spec.weight=1.5"), true);
  assert.equal(matches("spec.paused=false"), true);
  assert.equal(
    matches('spec.backend={"service":"web"\\,"port":80}'),
    true,
  );
  assert.equal(matches("spec.ingressClassName="), false);
  assert.equal(matches("spec.empty=", { spec: { empty: "" } }), true);
});

Deno.test("FieldSelector != requires a different rendered value", () => {
  assert.equal(matches("spec.ingressClassName!=nginx"), true);
  assert.equal(matches("spec.ingressClassName!=haproxy"), false);
  assert.equal(matches("metadata.generation!=3"), false);
  assert.equal(matches("spec.paused!=true"), true);
});

Deno.test("FieldSelector: a missing or null field fails = and passes !=", () => {
  for (const path of ["spec.missing", "spec.nothing", "spec.rules[5].host"]) {
    assert.equal(matches(`${path}=x`), false, path);
    assert.equal(matches(`${path}==x`), false, path);
    assert.equal(matches(`${path}!=x`), true, path);
    assert.equal(matches(`${path}=`), false, path);
  }
  assert.equal(matches("a=b", null), false);
  assert.equal(matches("a!=b", "string"), true);
});

Deno.test("FieldSelector requires every term to hold", () => {
  assert.equal(
    matches("metadata.namespace=shop,spec.ingressClassName=haproxy"),
    true,
  );
  assert.equal(
    matches("metadata.namespace=shop,spec.ingressClassName=nginx"),
    false,
  );
  assert.equal(
    matches("metadata.namespace=other,spec.ingressClassName=haproxy"),
    false,
  );
  assert.equal(
    matches(
      "metadata.namespace==shop,spec.ingressClassName!=nginx,spec.paused=false",
    ),
    true,
  );
});

Deno.test("FieldSelector keeps commas and = inside quoted brackets in the path", () => {
  assert.equal(matches("metadata.labels['app.kubernetes.io/name']=web"), true);
  assert.equal(
    matches('metadata.labels["app.kubernetes.io/name"]!=web'),
    false,
  );
  assert.equal(matches("metadata.labels['a,b']=comma,metadata.name=web"), true);
  assert.equal(matches("metadata.labels['k=v']=eq"), true);
  assert.equal(matches("metadata.labels['k=v']!=eq"), false);
  const [term] = new FieldSelector("metadata.labels['a,b']==comma").terms;
  assert.equal(term.path.expression, "metadata.labels['a,b']");
  assert.equal(term.operator, "==");
  assert.equal(term.value, "comma");
});

Deno.test("FieldSelector unescapes \\, \\= and \\\\ in values", () => {
  const sel = new FieldSelector("a=x\\,y\\=z\\\\,b!=c");
  assert.deepEqual(
    sel.terms.map((t) => [t.path.expression, t.operator, t.value]),
    [["a", "=", "x,y=z\\"], ["b", "!=", "c"]],
  );
  assert.equal(sel.matches({ a: "x,y=z\\" }), true);
  assert.equal(sel.toString(), "a=x\\,y\\=z\\\\,b!=c");
});

Deno.test("FieldSelector with [*]: = when any match equals, != when none does", () => {
  assert.equal(matches("spec.rules[*].host=b.example"), true);
  assert.equal(matches("spec.rules[*].host=c.example"), false);
  assert.equal(matches("spec.rules[*].host!=b.example"), false);
  assert.equal(matches("spec.rules[*].host!=c.example"), true);
  assert.equal(matches("spec.none[*].host!=c.example"), true);
});

Deno.test("FieldSelector: an empty or blank selector matches everything", () => {
  for (const s of ["", "  "]) {
    const sel = new FieldSelector(s);
    assert.equal(sel.isEmpty, true);
    assert.equal(sel.matches(ingress), true);
    assert.equal(sel.matches(null), true);
    assert.equal(sel.toString(), "");
  }
  assert.equal(new FieldSelector("a=b").isEmpty, false);
});

Deno.test("FieldSelector ignores whitespace around paths and values and prints canonically", () => {
  const sel = new FieldSelector(
    " spec.ingressClassName == haproxy , {.metadata.name}!=x ",
  );
  assert.equal(sel.matches(ingress), true);
  assert.equal(
    sel.toString(),
    "spec.ingressClassName==haproxy,{.metadata.name}!=x",
  );
  assert.equal(new FieldSelector(sel.toString()).toString(), sel.toString());
});

const malformed: [
  selector: string,
  term: string | undefined,
  problem: RegExp,
][] = [
  [",", undefined, /term 1 is empty/],
  ["a=b,", undefined, /term 2 is empty/],
  ["a=b,,c=d", undefined, /term 2 is empty/],
  [" ,a=b", undefined, /term 1 is empty/],
  ["metadata.name", "metadata.name", /has no operator/],
  ["a=b,spec.paused", "spec.paused", /has no operator/],
  ["metadata.labels['x=y']", "metadata.labels['x=y']", /has no operator/],
  ["=web", "=web", /has an empty path/],
  [" !=web", " !=web", /has an empty path/],
  ["a..b=c", "a..b=c", /has an invalid path: cannot parse JSONPath "a\.\.b"/],
  ["a[0=c", "a[0=c", /has an invalid path: .*expected "\]" at position 3/],
  ["a['b=c", "a['b=c", /has an invalid path: .*closing '/],
  ["a.b c=d", "a.b c=d", /has an invalid path/],
  ["a=b=c", "a=b=c", /unescaped "="/],
  ["a=b\\x", "a=b\\x", /invalid escape "\\x"/],
  ["a=b\\", "a=b\\", /unfinished escape/],
  ["x=1,a=b=c,y=2", "a=b=c", /unescaped "="/],
];

for (const [selector, term, problem] of malformed) {
  Deno.test(`FieldSelector rejects ${JSON.stringify(selector)}`, () => {
    assert.throws(() => new FieldSelector(selector), (err) => {
      assert(err instanceof FieldSelectorError);
      assert.equal(err.name, "FieldSelectorError");
      assert.equal(err.selector, selector);
      assert.equal(err.term, term);
      assert(
        err.message.startsWith(
          `Invalid field selector ${JSON.stringify(selector)}: `,
        ),
        err.message,
      );
      if (term !== undefined) {
        assert(err.message.includes(JSON.stringify(term)), err.message);
      }
      assert.match(err.message, problem);
      return true;
    });
  });
}

Deno.test("FieldSelectorError keeps the JSONPath error as its cause", () => {
  assert.throws(() => new FieldSelector("a..b=c"), (err) => {
    assert(err instanceof FieldSelectorError);
    assert(err.cause instanceof JsonPathError);
    assert.equal(err.cause.position, 2);
    return true;
  });
});

Deno.test("FieldSelector rejects a non-string selector", () => {
  assert.throws(
    () => new FieldSelector(undefined as unknown as string),
    FieldSelectorError,
  );
});
