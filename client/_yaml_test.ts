import assert from "node:assert/strict";
import { parseYaml, YamlError } from "./_yaml.ts";
import { kubectl, viewKubeconfig } from "../tests/kubectl.ts";
import {
  ignoredWithout,
  kubectlMissing,
  requireAvailable,
} from "../tests/requirements.ts";

/** Strings that make a YAML writer pick every style it has. */
const AWKWARD = {
  n: 12,
  float: 1.5,
  exp: 1e+21,
  negative: -3,
  bool: true,
  nil: null,
  yes: "yes",
  off: "off",
  numeric: "012",
  hex: "0x1F",
  empty: "",
  leading: "  leading spaces",
  trailing: "trailing ",
  tab: "a\tb",
  newline: "line1\nline2\n",
  blankInside: "a\n\nb",
  keepTrailing: "a\n\n\n",
  indentedFirst: "  indented\nnot\n",
  tabFirst: "\tx\ny",
  quotes: `it's "quoted"`,
  colon: "a: b",
  hash: "a #b",
  urlFragment: "https://x.example/#install",
  unicode: "héllo ☃ 🙂",
  backslash: "C:\\dir\\file",
  list: [1, "two", [], {}, [["deep"]], { a: { b: [null, false] } }],
  long:
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam",
  longQuoted:
    "'Lorem' ipsum \"dolor\" sit amet, consectetur adipiscing elit, sed do eiusmod tempor: incididunt ut labore et dolore magna aliqua.\tUt enim ad minim veniam",
  longNoSpaces: "x".repeat(200),
  indicators: ["- x", "*x", "&a", "!x", "%x", "{a}", "[a]", "~", "...", "---"],
  "key with spaces": "v",
  "key: colon": "v",
  "#hash key": "v",
  "null": "key named null",
};

Deno.test({
  name: "parseYaml reads what kubectl writes, awkward strings included",
  ignore: ignoredWithout(kubectlMissing),
  async fn() {
    requireAvailable(kubectlMissing);
    const dir = await Deno.makeTempDir({ prefix: "k8s-watcher-yaml-" });
    try {
      const path = `${dir}/config.json`;
      await Deno.writeTextFile(
        path,
        JSON.stringify({
          apiVersion: "v1",
          kind: "Config",
          "current-context": "c",
          clusters: [{
            name: "cl",
            cluster: {
              server: "https://127.0.0.1:6443",
              extensions: [{ name: "awkward", extension: AWKWARD }],
            },
          }],
          contexts: [{ name: "c", context: { cluster: "cl", user: "u" } }],
          users: [{
            name: "u",
            user: {
              exec: {
                apiVersion: "client.authentication.k8s.io/v1beta1",
                command: "plugin",
                args: Object.values(AWKWARD).filter((v) =>
                  typeof v === "string"
                ),
                installHint: AWKWARD.long,
              },
            },
          }],
        }),
      );
      const yaml = await viewKubeconfig(path, "yaml");
      const json = await viewKubeconfig(path, "json");
      const parsed = parseYaml(yaml) as {
        clusters: [{ cluster: { extensions: [{ extension: unknown }] } }];
      };
      assert.deepEqual(parsed, JSON.parse(json));
      assert.deepEqual(
        parsed.clusters[0].cluster.extensions[0].extension,
        AWKWARD,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "parseYaml reads a kubeconfig built by kubectl config set-*",
  ignore: ignoredWithout(kubectlMissing),
  async fn() {
    requireAvailable(kubectlMissing);
    const dir = await Deno.makeTempDir({ prefix: "k8s-watcher-yaml-" });
    try {
      const kc = `${dir}/config`;
      await Deno.writeTextFile(
        `${dir}/ca.crt`,
        "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
      );
      const steps = [
        [
          "set-cluster",
          "dev",
          "--server=https://127.0.0.1:6443",
          `--certificate-authority=${dir}/ca.crt`,
          "--embed-certs",
          "--tls-server-name=api.internal",
          "--proxy-url=http://127.0.0.1:3128",
        ],
        [
          "set-cluster",
          "insecure",
          "--server=https://10.0.0.1",
          "--insecure-skip-tls-verify",
        ],
        [
          "set-credentials",
          "exec-user",
          "--exec-command=./bin/plugin",
          "--exec-arg=get-token",
          "--exec-arg=--cluster name: x",
          "--exec-env=FOO=bar",
          "--exec-env=SPACED=a b #c",
          "--exec-api-version=client.authentication.k8s.io/v1",
          "--exec-interactive-mode=Never",
          "--exec-provide-cluster-info=true",
        ],
        ["set-credentials", "token-user", "--token=abc:def #x yes"],
        [
          "set-credentials",
          "basic",
          "--username=admin",
          "--password=p@ss: 'w\"rd",
        ],
        [
          "set-context",
          "dev",
          "--cluster=dev",
          "--user=exec-user",
          "--namespace=012",
        ],
        ["set-context", "other", "--cluster=insecure", "--user=token-user"],
        ["use-context", "dev"],
      ];
      for (const step of steps) {
        await kubectl("config", ...step, "--kubeconfig", kc);
      }
      const yaml = await Deno.readTextFile(kc);
      const json = await viewKubeconfig(kc, "json");
      const parsed = parseYaml(yaml) as Record<string, unknown>;
      assert.deepEqual(parsed, JSON.parse(json));
      assert.equal(parsed["current-context"], "dev");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("parseYaml reads the block, flow and quoting forms of the subset", async (t) => {
  const cases: [string, string, unknown][] = [
    ["empty document", "# only a comment\n\n", null],
    ["document marker and end", "---\na: 1\n...\n", { a: 1 }],
    [
      "nested mappings and comments",
      "a:\n  b: c # note\n  # a comment line\n  d:   e\n",
      { a: { b: "c", d: "e" } },
    ],
    [
      "a sequence at the indentation of its key",
      "users:\n- name: u\n  user:\n    token: t\n- name: v\nkind: Config\n",
      {
        users: [{ name: "u", user: { token: "t" } }, { name: "v" }],
        kind: "Config",
      },
    ],
    [
      "compact nested sequences",
      "- - a\n  - b\n-\n  - c\n- \n",
      [["a", "b"], ["c"], null],
    ],
    ["empty flow collections", "a: []\nb: { }\nc: [ ] # x\n", {
      a: [],
      b: {},
      c: [],
    }],
    [
      "flow sequences and mappings, as EKS docs and hand edits write them",
      'args: ["eks", "get-token", "--cluster-name", "prod"]\n' +
      "env: [{name: AWS_PROFILE, value: dev}]\n",
      {
        args: ["eks", "get-token", "--cluster-name", "prod"],
        env: [{ name: "AWS_PROFILE", value: "dev" }],
      },
    ],
    [
      "nested flow collections, quoted keys, core schema, a trailing comma",
      "a: {b: [1, 2, {c: \"d\"}], 'e f': null, g: true, h: 0x1f, i: ~,}\n",
      { a: { b: [1, 2, { c: "d" }], "e f": null, g: true, h: 31, i: null } },
    ],
    [
      "a flow collection over several lines, with comments",
      'args: [\n  "eks",\n  get-token,   # the token\n  --region, eu-west-1,\n]\nnext: 1\n',
      { args: ["eks", "get-token", "--region", "eu-west-1"], next: 1 },
    ],
    [
      "flow keys without values, JSON style, colons inside plain values",
      'a: {x}\nb: {x: }\nc: {"k":1}\nd: {k:v}\ne: [http://h:80/p, "q"]\n',
      {
        a: { x: null },
        b: { x: null },
        c: { k: 1 },
        d: { "k:v": null },
        e: ["http://h:80/p", "q"],
      },
    ],
    [
      "plain and quoted flow values over lines",
      "a: [one\n  two, 'it''s\n  here', \"x\\\n  y\"]\n",
      { a: ["one two", "it's here", "xy"] },
    ],
    [
      "flow collections as sequence entries and at the top",
      '- {name: x, value: "y z"}\n- [ ]\n- [1, [2, [3]]]\n',
      [{ name: "x", value: "y z" }, [], [1, [2, [3]]]],
    ],
    ["null values", "a:\nb: ~\nc: null\n", { a: null, b: null, c: null }],
    [
      "core schema scalars",
      "a: true\nb: False\nc: 0x1f\nd: 0o17\ne: -2.5e3\nf: .inf\ng: 1.2.3\nh: 0.5\n",
      {
        a: true,
        b: false,
        c: 31,
        d: 15,
        e: -2500,
        f: Infinity,
        g: "1.2.3",
        h: 0.5,
      },
    ],
    [
      "plain scalars keep colons and hashes that are not separators",
      "a: http://x:80/p#frag\nb: a#b\nc: -x\n",
      { a: "http://x:80/p#frag", b: "a#b", c: "-x" },
    ],
    [
      "multi-line plain scalar",
      "a: one\n  two\n\n  three\nb: x\n",
      { a: "one two\nthree", b: "x" },
    ],
    [
      "single quotes",
      "a: 'it''s # not a comment'\nb: 'one\n  two\n\n  three'\n",
      { a: "it's # not a comment", b: "one two\nthree" },
    ],
    [
      "double quotes and escapes",
      'a: "t\\tb\\n\\x41\\u00e9\\U0001F642\\\\ \\/"\nb: "one \\\n  two\n  three"\n',
      { a: "t\tb\nAé🙂\\ /", b: "one two three" },
    ],
    ["quoted keys", "\"a b\": 1\n'c:d': 2\n", { "a b": 1, "c:d": 2 }],
    [
      "literal block scalar with chomping",
      "a: |\n  x\n   y\n\n  z\n\nb: |-\n  x\nc: |+\n  x\n\nd: x\n",
      { a: "x\n y\n\nz\n", b: "x", c: "x\n\n", d: "x" },
    ],
    [
      "folded block scalar",
      "a: >\n  one\n  two\n\n  three\n    indented\n  four\n",
      { a: "one two\nthree\n  indented\nfour\n" },
    ],
    [
      "indentation indicator",
      "a: |2\n    indented\n  not\nb: 1\n",
      { a: "  indented\nnot\n", b: 1 },
    ],
    ["block scalar in a sequence", "- |\n  text\n- x\n", ["text\n", "x"]],
    ["kept breaks at the end of the file", "a: |+\n  x\n", { a: "x\n" }],
    ["kept empty lines at the end of the file", "a: |+\n  x\n\n", {
      a: "x\n\n",
    }],
    ["a last line without a break", "a: |\n  x", { a: "x" }],
    ["an empty block scalar", "a: |\nb: >+\n\nc: 1\n", {
      a: "",
      b: "\n",
      c: 1,
    }],
    ["windows line ends", "a: 1\r\nb:\r\n- x\r\n", { a: 1, b: ["x"] }],
    ["a byte order mark", "\uFEFFa: 1\n", { a: 1 }],
    ["a top-level sequence of scalars", "- 1\n- a b\n", [1, "a b"]],
    [
      "__proto__ is an ordinary key",
      "__proto__: x\n",
      JSON.parse('{"__proto__":"x"}'),
    ],
  ];
  for (const [name, text, expected] of cases) {
    await t.step(name, () => assert.deepEqual(parseYaml(text), expected));
  }
});

Deno.test("parseYaml names the line and column of what it does not read", async (t) => {
  const cases: [string, string, number, number, RegExp][] = [
    ["anchor", "a: &x 1\n", 1, 4, /anchors/],
    ["alias", "a: 1\nb: *x\n", 2, 4, /aliases/],
    ["tag", "a: !!str 1\n", 1, 4, /tags/],
    ["merge key", "a:\n  <<: {}\n", 2, 3, /merge keys/],
    ["unclosed flow sequence", "a: [1, 2\n# end\n", 1, 4, /never closed/],
    [
      "pair in a flow sequence",
      "a: [b: c]\n",
      1,
      6,
      /write it as \{key: value\}/,
    ],
    ["anchor in a flow sequence", "a: [&x 1]\n", 1, 5, /anchors/],
    ["alias in a flow mapping", "a: {b: *x}\n", 1, 8, /aliases/],
    ["duplicate flow key", "a: {b: 1, b: 2}\n", 1, 11, /duplicate/],
    ["text after a flow collection", "a: [1] 2\n", 1, 8, /unexpected text/],
    ["flow collection as a key", "[a]: b\n", 1, 4, /as mapping keys/],
    ["flow key that is a collection", "a: {[b]: c}\n", 1, 5, /complex keys/],
    ["block entry in a flow sequence", "a: [- b]\n", 1, 5, /block sequence/],
    ["empty flow entry", "a: [1,, 2]\n", 1, 7, /empty entry/],
    ["wrong closing bracket", "a: [1}\n", 1, 6, /expected , or \]/],
    ["complex key", "? a\n: b\n", 1, 1, /complex keys/],
    ["second document", "a: 1\n---\nb: 2\n", 2, 1, /several documents/],
    ["directive", "%YAML 1.2\n---\na: 1\n", 1, 1, /directives/],
    ["tab indentation", "a:\n\tb: 1\n", 2, 1, /tabs/],
    ["duplicate key", "a: 1\nb: 2\na: 3\n", 3, 1, /duplicate/],
    ["mapping on the line of a key", "a: b: c\n", 1, 5, /mapping cannot start/],
    [
      "sequence on the line of a key",
      "a: - b\n",
      1,
      4,
      /sequence cannot start/,
    ],
    ["unexpected indentation", "a: 1\n  b: 2\n", 2, 4, /mapping cannot start/],
    ["indented key", "a:\n  b: []\n    c: 2\n", 3, 5, /unexpected indentation/],
    ["unterminated quote", "a: 'open\n", 1, 4, /never closed/],
    ["bad escape", 'a: "\\q"\n', 1, 5, /invalid escape/],
    ["text after a quoted value", "a: 'x' y\n", 1, 8, /unexpected text/],
    ["huge integer", "a: 12345678901234567890\n", 1, 4, /too large/],
    ["scalar among keys", "a: 1\nb\n", 2, 1, /expected a mapping key/],
    ["bad block header", "a: |x\n  y\n", 1, 5, /block scalar header/],
    [
      "less indented continuation",
      "a:\n  b: 'x\n y'\n",
      3,
      2,
      /must be indented/,
    ],
  ];
  for (const [name, text, line, column, reason] of cases) {
    await t.step(name, () => {
      assert.throws(
        () => parseYaml(text),
        (error) =>
          error instanceof YamlError && error.line === line &&
          error.column === column && reason.test(error.message),
      );
    });
  }
});

Deno.test("parseYaml errors never quote the document", () => {
  const secret = "s3cr3t-token-value";
  for (
    const text of [
      `token: &a ${secret}\n`,
      `token: "${secret}\\q"\n`,
      `token: ${secret}: x\n`,
      `token: '${secret}\n`,
      `token: [${secret}: x]\n`,
      `token: {a: ${secret}, a: 1}\n`,
      `token: [${secret}\n`,
    ]
  ) {
    assert.throws(
      () => parseYaml(text),
      (error) => error instanceof YamlError && !error.message.includes(secret),
    );
  }
});
