// The control plane on Deno, Node and Bun: the same script on each.
//
//   <runtime> tests/runtimes/control_plane.mjs <mod module> <control plane module>
//
// It starts a ControlPlane (its binaries found as `ControlPlane.start()`
// finds them), creates a ConfigMap with kubectl, syncs a Watcher through
// `plane.client()`, restarts kube-apiserver, sees the ConfigMap's deletion,
// and stops both: no program of the plane runs and its folder is gone.
// Then it runs itself five times as a host that starts a plane in a folder
// of its own and ends: by SIGINT, by SIGINT to its whole process group (as
// Ctrl-C in a terminal sends it, to the programs too), by SIGTERM, by
// `process.exit(3)` without a stop, and by SIGTERM to a host with a
// listener of its own that stops the plane and exits with code 7. Each
// time, the moment the host is gone, no etcd or kube-apiserver of its plane
// runs and its folder is gone, and the host ended as the signal ends a
// process (or with its own code). It exits non-zero on any failure.
// Linux only: it reads /proc.
// The modules are the package as a user of that runtime gets it: the
// TypeScript sources on Deno, the npm package imported by name on Node and
// Bun (`@haptic/k8s-watcher` and `@haptic/k8s-watcher/testing/control-plane`,
// from a copy of this file in a project that has the packed tarball
// installed).
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";

const runtime = typeof globalThis.Deno === "object"
  ? `Deno ${globalThis.Deno.version.deno}`
  : typeof globalThis.Bun === "object"
  ? `Bun ${globalThis.Bun.version}`
  : `Node ${process.versions.node}`;

// A URL or a package name as it is; a path as a file URL.
const moduleUrl = (spec) =>
  /^[a-z]+:/.test(spec) || !/^[./]/.test(spec)
    ? spec
    : pathToFileURL(spec).href;
const [modPath, planePath, mode, ...rest] = process.argv.slice(2);
if (!modPath || !planePath) {
  throw new Error(
    "usage: control_plane.mjs <mod module> <control plane module>",
  );
}
const { ControlPlane } = await import(moduleUrl(planePath));

if (mode === "--host") await host(rest[0], rest[1]);
else await main();

/**
 * The host: starts a plane in `workDir`, says where on stdout, then ends as
 * `end` says (a signal from the parent, `exit` once told on stdin, or
 * `listened`: SIGTERM, which a listener of its own handles). A parent gone
 * (its stdin closed) ends it too, so no host outlives a failed test.
 */
async function host(workDir, end) {
  process.stdin.once("end", () => process.exit(9));
  const starting = ControlPlane.start({ workDir });
  if (end === "listened") {
    process.on("SIGTERM", async () => {
      await (await starting).stop();
      process.exit(7);
    });
  }
  const plane = await starting;
  if (end === "exit") process.stdin.once("data", () => process.exit(3));
  else process.stdin.resume(); // nothing ends it but a signal, or its parent gone
  console.log(JSON.stringify({ dir: plane.dir }));
}

async function main() {
  const guard = setTimeout(() => {
    console.error(
      `control plane test on ${runtime} did not finish within 180 s`,
    );
    process.exit(1); // the plane goes with this process
  }, 180_000);
  const { Watcher } = await import(moduleUrl(modPath));
  const workDir = mkdtempSync(`${tmpdir()}/k8s-watcher-runtime-cp-`);
  try {
    const started = Date.now();
    const plane = await ControlPlane.start({ workDir });
    const startSeconds = ((Date.now() - started) / 1000).toFixed(1);
    const programs = programsUnder(workDir);
    check(programs.length === 2, `2 programs run, found ${programs.length}`);
    let deleted;
    const gone = new Promise((resolve) => deleted = resolve);
    const client = plane.client();
    const watcher = new Watcher({
      gvr: { group: "", version: "v1", resource: "configmaps" },
      indexBy: ["metadata.namespace", "metadata.name"],
      namespace: "default",
      onChange: (_store, batch) => {
        if (batch.deleted > 0) deleted();
      },
    }, client);
    try {
      await plane.kubectl(
        "create",
        "configmap",
        "settings",
        "--from-literal=color=blue",
      );
      watcher.start();
      const synced = await watcher.waitForSync();
      check(synced === 1, `the watcher synced 1 object, got ${synced}`);
      const [settings] = await watcher.store.get("default", "settings");
      check(settings?.data?.color === "blue", "the store holds the ConfigMap");
      await plane.restartApiServer();
      await plane.kubectl("delete", "configmap", "settings");
      await gone;
      check(watcher.store.size === 0, "the store is empty after the delete");
    } finally {
      await watcher.stop();
      client.close();
      await plane.stop();
    }
    check(
      programs.every((pid) => !running(pid)),
      "no program runs after stop()",
    );
    check(!existsSync(plane.dir), "stop() removed the plane's folder");
    console.log(
      `control plane ok on ${runtime}: started in ${startSeconds} s, kubectl, a Watcher synced and saw a delete across a kube-apiserver restart, stopped leaving nothing`,
    );
    for (const end of ["SIGINT", "group", "SIGTERM", "exit", "listened"]) {
      await endedHost(end);
    }
    console.log(
      `control plane ok on ${runtime}: a host ended by SIGINT (to it and to its process group), by SIGTERM, by process.exit(3) and by its own SIGTERM listener left no program and no folder`,
    );
  } finally {
    clearTimeout(guard);
    await waitUntil(
      "no process mentions the work folder",
      () => mentioning(workDir).length === 0,
    );
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** A host ended by `end`: nothing of its plane may be left the moment it is gone. */
async function endedHost(end) {
  const workDir = mkdtempSync(`${tmpdir()}/k8s-watcher-runtime-host-`);
  try {
    const child = spawnHost(
      [modPath, planePath, "--host", workDir, end],
      end === "group",
    );
    const { dir } = JSON.parse(await child.line);
    const programs = programsUnder(workDir);
    check(
      programs.length === 2,
      `${end}: 2 programs run in the host's plane, found ${programs.length}`,
    );
    if (end === "exit") child.write("exit\n");
    else if (end === "group") child.killGroup("SIGINT");
    else child.kill(end === "listened" ? "SIGTERM" : end);
    const { code, signal } = await child.ended;
    if (end === "exit" || end === "listened") {
      const own = end === "exit" ? 3 : 7;
      check(
        code === own,
        `${end}: the host ended by ${
          signal ?? `code ${code}`
        }, not code ${own}`,
      );
    } else {
      const expected = end === "group" ? "SIGINT" : end;
      check(
        signal === expected,
        `${end}: the host ended by ${
          signal ?? `code ${code}`
        }, not by ${expected}`,
      );
    }
    // No waiting: what the host did before it went is all there is.
    const left = programs.filter(running);
    check(
      left.length === 0,
      `${end}: programs ${left.join(", ")} still run once the host is gone`,
    );
    check(!existsSync(dir), `${end}: the plane's folder ${dir} is still there`);
  } finally {
    await waitUntil(
      "no process mentions the host's work folder",
      () => mentioning(workDir).length === 0,
    );
    rmSync(workDir, { recursive: true, force: true });
  }
}

function check(condition, what) {
  if (!condition) throw new Error(`control plane on ${runtime}: ${what}`);
}

/**
 * This script as a host, on this runtime (in a process group of its own
 * when `group`): its first line on stdout, a signal to it or its group, a
 * line to its stdin, and how it ended. On Deno through `Deno.Command`,
 * whose status is the process's own (Deno's `node:child_process` reports a
 * signal it sent as the end at once).
 */
function spawnHost(args, group) {
  const script = fileURLToPath(import.meta.url);
  let stdout, stdin, kill, pid, ended;
  if (typeof globalThis.Deno === "object") {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "--no-lock", script, ...args],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
      detached: group,
    }).spawn();
    pid = child.pid;
    stdout = child.stdout.pipeThrough(new TextDecoderStream());
    const writer = child.stdin.getWriter();
    stdin = (text) => writer.write(new TextEncoder().encode(text));
    kill = (signal) => child.kill(signal);
    ended = child.status.then(({ code, signal }) => ({ code, signal }));
  } else {
    const child = spawn(process.execPath, [script, ...args], {
      stdio: ["pipe", "pipe", "inherit"],
      detached: group,
    });
    pid = child.pid;
    child.stdout.setEncoding("utf8");
    stdout = child.stdout;
    stdin = (text) => child.stdin.write(text);
    kill = (signal) => child.kill(signal);
    ended = new Promise((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", (code, signal) => resolve({ code, signal }));
    });
  }
  const line = (async () => {
    let text = "";
    for await (const chunk of stdout) {
      text += chunk;
      const cut = text.indexOf("\n");
      if (cut >= 0) return text.slice(0, cut);
    }
    const { code, signal } = await ended;
    throw new Error(`the host ended (${signal ?? code}) before its plane ran`);
  })();
  const killGroup = (signal) => process.kill(-pid, signal);
  return { line, write: stdin, kill, killGroup, ended };
}

/** The PIDs of the processes whose command line mentions `text` (Linux). */
function mentioning(text) {
  const pids = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      if (argv.some((arg) => arg.includes(text))) pids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** etcd and kube-apiserver (not their watchdog shells) run with files under `dir`. */
function programsUnder(dir) {
  return mentioning(dir).filter((pid) => {
    try {
      const argv0 = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0];
      return /\/(etcd|kube-apiserver)$/.test(argv0);
    } catch {
      return false;
    }
  });
}

/** Whether `pid` runs: a zombie (dead, its parent gone before reaping it) does not. */
function running(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Polls `condition` until it holds; fails past a deadline of 30 s. */
async function waitUntil(what, condition) {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within 30 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
