/**
 * The real-server sync, interleaved between builds: one control plane
 * (`testing/control_plane/`) holding `--objects` ConfigMaps of a few KB, each
 * build's `bench/_contender_ours.ts` syncing them over TLS from the plane's
 * kubeconfig in a fresh process, `--rounds` times (A B A B …, the order
 * reversed every other round). On a shared machine only such interleaved
 * figures compare.
 *
 * Run: `deno run -A bench/real_server_ab.ts [--rounds 6] [--objects 10000]
 * <tree A> [<tree B> …]` where a tree is a checkout of this repository (e.g.
 * a `git worktree` of the old commit). Prints each round's sync time and
 * heap per object, then the medians and each build's ratio to the first.
 *
 * @module
 */

import { median } from "./_format.ts";
import type { Outcome } from "./_contender.ts";
import { REAL_SERVER_NAMESPACE, startRealServer } from "./_real_server.ts";
import { takeOption } from "./_args.ts";

const args = [...Deno.args];
const rounds = Number(takeOption(args, "--rounds", "6"));
const objects = Number(takeOption(args, "--objects", "10000"));
const trees = args.map((t) => t.replace(/\/$/, ""));
if (trees.length === 0) {
  throw new Error(
    "Usage: real_server_ab.ts [--rounds N] [--objects N] <tree A> [<tree B> …]",
  );
}

const server = await startRealServer(
  objects,
  (line: string) => console.error(line),
);
if ("notRun" in server) throw new Error(server.notRun);
const { plane, kubeconfig } = server;

async function once(tree: string): Promise<Outcome> {
  const task = JSON.stringify({
    server: plane.url,
    workload: "sync",
    heap: true,
    kubeconfig,
    namespace: REAL_SERVER_NAMESPACE,
    resource: "configmaps",
    objects,
    timeoutMs: 170_000,
  });
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-lock",
      "--allow-all",
      "--v8-flags=--expose-gc,--max-old-space-size=8192",
      `${tree}/bench/_contender_ours.ts`,
      task,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const line = new TextDecoder().decode(stdout).split("\n")
    .find((l) => l.startsWith("RESULT "));
  if (code !== 0 || line === undefined) {
    throw new Error(
      `${tree} failed (${code}): ${new TextDecoder().decode(stderr)}`,
    );
  }
  return JSON.parse(line.slice(7)) as Outcome;
}

const syncs = trees.map(() => [] as number[]);
const heaps = trees.map(() => [] as number[]);
try {
  for (let r = 0; r < rounds; r++) {
    const order = trees.map((_, k) => k);
    if (r % 2 === 1) order.reverse();
    for (const k of order) {
      const outcome = await once(trees[k]);
      syncs[k].push(outcome.syncMs!);
      heaps[k].push(outcome.heapPerObject ?? NaN);
      console.error(
        `round ${r + 1} ${String.fromCharCode(65 + k)} ${trees[k]}: ${
          outcome.syncMs!.toFixed(0)
        } ms, ${outcome.heapPerObject?.toFixed(0)} B/object`,
      );
    }
  }
} finally {
  await plane.stop();
}

const syncMedians = syncs.map((s) => median(s)!);
console.log(
  `\n${
    objects / 1000
  }k ConfigMaps from kube-apiserver over TLS, ${rounds} interleaved rounds, medians (load ${
    Deno.loadavg().map((l) => l.toFixed(1)).join(" ")
  }):`,
);
console.log(
  "| build | sync ms (median) | min–max | vs A | heap B/object (median) |",
);
console.log("| --- | ---: | ---: | ---: | ---: |");
trees.forEach((tree, k) => {
  console.log(
    `| ${String.fromCharCode(65 + k)} ${tree} | ${
      syncMedians[k].toFixed(0)
    } | ${Math.min(...syncs[k]).toFixed(0)}–${
      Math.max(...syncs[k]).toFixed(0)
    } | ${(syncMedians[k] / syncMedians[0]).toFixed(3)}× | ${
      median(heaps[k])!.toFixed(0)
    } |`,
  );
});
