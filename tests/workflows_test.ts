// The GitHub Actions workflows are checked by actionlint, built from the Go
// module proxy at a pinned version into the tools cache (outside the
// repository; K8S_WATCHER_TOOLS_DIR, default ~/.cache/k8s-watcher-tools)
// the first time, in seconds. Without Go the check is skipped with a
// warning, except under CI=true, where it fails: CI never skips silently.
import assert from "node:assert/strict";
import { parseYaml } from "../client/_yaml.ts";

const ACTIONLINT_VERSION = "1.7.12";
const ROOT = new URL("../", import.meta.url);
const env = (name: string) => Deno.env.get(name);
const tools = env("K8S_WATCHER_TOOLS_DIR") ??
  `${env("XDG_CACHE_HOME") ?? `${env("HOME")}/.cache`}/k8s-watcher-tools`;
const dir = `${tools}/actionlint-${ACTIONLINT_VERSION}`;
const bin = `${dir}/actionlint`;

function exists(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** actionlint from the tools cache, built with `go install` when absent. */
function actionlint(): { bin?: string; why?: string } {
  if (exists(bin)) return { bin };
  let built;
  try {
    built = new Deno.Command("go", {
      args: [
        "install",
        `github.com/rhysd/actionlint/cmd/actionlint@v${ACTIONLINT_VERSION}`,
      ],
      env: { GOBIN: dir, GOFLAGS: "-mod=mod" },
      stdout: "piped",
      stderr: "piped",
    }).outputSync();
  } catch {
    return { why: "Go is not on PATH to build it" };
  }
  if (!built.success || !exists(bin)) {
    return {
      why: `go install failed: ${new TextDecoder().decode(built.stderr)}`,
    };
  }
  return { bin };
}

const found = actionlint();
const ci = env("CI") === "true";
if (!found.bin && !ci) {
  console.warn(
    `Skipping the actionlint check: actionlint ${ACTIONLINT_VERSION} is not in ${dir} and ${found.why}`,
  );
}

/** Runs actionlint on `files`; externals (shellcheck) off, for the same result everywhere. */
function lint(...files: string[]): { ok: boolean; output: string } {
  const out = new Deno.Command(found.bin!, {
    args: ["-no-color", "-shellcheck=", "-pyflakes=", ...files],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  const text = new TextDecoder();
  return {
    ok: out.success,
    output: text.decode(out.stdout) + text.decode(out.stderr),
  };
}

Deno.test({
  name: "every workflow passes actionlint",
  ignore: !found.bin && !ci,
  fn() {
    assert.ok(
      found.bin,
      `actionlint ${ACTIONLINT_VERSION} is needed under CI=true: ${found.why}`,
    );
    const workflows = [...Deno.readDirSync(new URL(".github/workflows/", ROOT))]
      .filter((e) => /\.ya?ml$/.test(e.name))
      .map((e) => `.github/workflows/${e.name}`);
    assert.ok(workflows.length > 0);
    const { ok, output } = lint(...workflows);
    assert.ok(ok, output);
  },
});

Deno.test({
  name: "actionlint fails a workflow with a mistake (the check is real)",
  ignore: !found.bin && !ci,
  async fn() {
    assert.ok(found.bin, found.why);
    const file = await Deno.makeTempFile({ suffix: ".yml" });
    try {
      await Deno.writeTextFile(
        file,
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n",
      );
      const { ok, output } = lint(file);
      assert.equal(ok, false);
      assert.match(output, /property "nope" is not defined/);
    } finally {
      await Deno.remove(file);
    }
  },
});

Deno.test("the publish workflow publishes to JSR with the job's OIDC identity", async () => {
  const workflow = parseYaml(
    await Deno.readTextFile(new URL(".github/workflows/publish.yml", ROOT)),
  ) as {
    jobs: Record<string, {
      permissions?: Record<string, string>;
      steps: { uses?: string; run?: string; with?: Record<string, unknown> }[];
    }>;
  };
  const jobs = Object.values(workflow.jobs);
  const publish = jobs.find((job) =>
    job.steps.some((s) => /^(deno publish|npx jsr publish)\b/.test(s.run ?? ""))
  );
  assert.ok(publish, "a job runs deno publish or npx jsr publish");
  assert.equal(publish.permissions?.["id-token"], "write");
  assert.equal(publish.permissions?.contents, "read");
  // The Deno it sets up is the one the repository pins (.ci/run).
  const setup = publish.steps.find((s) =>
    s.uses?.startsWith("denoland/setup-deno@")
  );
  const pinned = /DENO_VERSION=(\S+)/.exec(
    await Deno.readTextFile(new URL(".ci/run", ROOT)),
  )?.[1];
  assert.equal(setup?.with?.["deno-version"], pinned);
});
