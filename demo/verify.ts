import type { KubeObject, SingleWatcher } from "../mod.ts";
import type { FakeApiServer } from "../testing/mod.ts";
import { CONFIG_SECRET, SECRETS } from "./cluster.ts";
import type { Printer } from "./output.ts";
import type { SecretReporter } from "./secret_reporter.ts";
import type { Watched } from "./watched.ts";

/** `namespace/name@resourceVersion` of what the watcher must hold. */
function serverState(server: FakeApiServer, w: Watched): Set<string> {
  return new Set(server.list(w.gvr).filter(w.selects).map(identity));
}

export async function differences(
  server: FakeApiServer,
  w: Watched,
): Promise<number> {
  const expected = serverState(server, w);
  const stored = await w.watcher.store.list();
  let diff = Math.abs(expected.size - stored.length);
  for (const obj of stored) if (!expected.has(identity(obj))) diff++;
  return diff;
}

function identity(obj: KubeObject): string {
  const m = obj.metadata;
  return `${m.namespace}/${m.name}@${m.resourceVersion}`;
}

function secretOnServer(server: FakeApiServer): KubeObject | null {
  return server.list(SECRETS, CONFIG_SECRET.namespace)
    .find((s) => s.metadata.name === CONFIG_SECRET.name) ?? null;
}

export function secretMatches(
  server: FakeApiServer,
  single: SingleWatcher,
): boolean {
  return secretOnServer(server)?.metadata.resourceVersion ===
    single.current?.metadata.resourceVersion;
}

/** The final table; returns the exit code. */
export async function report(
  server: FakeApiServer,
  watched: Watched[],
  secret: SingleWatcher,
  reporter: SecretReporter,
  caughtUp: boolean,
  printer: Printer,
): Promise<number> {
  let ok = true;
  const rows: (string | number)[][] = [];
  for (const w of watched) {
    const onServer = serverState(server, w).size;
    const diff = await differences(server, w);
    const h = w.watcher.health();
    const t = w.tally;
    // Every batch's stats must add up to what the store holds.
    const ledger = t.expectedSize === h.objects;
    ok &&= diff === 0 && ledger;
    rows.push([
      w.label,
      h.objects,
      onServer,
      diff === 0
        ? printer.style("green", "✔ same")
        : printer.style("red", `✘ ${diff} differ`),
      t.initial,
      t.batches,
      t.created,
      t.modified,
      t.deleted,
      ledger
        ? printer.style("green", "✔")
        : printer.style("red", `✘ ${t.expectedSize}`),
      h.relists,
      h.reconnects,
    ]);
  }
  const ingresses = await watched[0].watcher.store.list();
  const stripped = ingresses.every((i) =>
    i.metadata.managedFields === undefined
  );
  ok &&= stripped;
  const secretOk = secretMatches(server, secret);
  ok &&= secretOk;
  printer.line(
    ok ? "verify" : "error",
    ok
      ? `every store matches the server (objects and resourceVersions)${
        caughtUp ? "" : " after a slow catch-up"
      }`
      : "MISMATCH between the watchers and the server",
  );
  printer.plain();
  printer.table([
    "watcher",
    "store",
    "server",
    "match",
    "initial",
    "batches",
    "created",
    "modified",
    "deleted",
    "ledger",
    "relists",
    "reconnects",
  ], rows);
  printer.plain();
  const rv = (o: KubeObject | null) =>
    o ? `rv ${o.metadata.resourceVersion}` : "absent";
  printer.plain(
    `  Secret ${CONFIG_SECRET.namespace}/${CONFIG_SECRET.name}: ${
      rv(secret.current)
    } in the watcher, ${rv(secretOnServer(server))} on the server ${
      secretOk ? printer.style("green", "✔") : printer.style("red", "✘")
    } · ${reporter.changes} changes delivered (${reporter.deletes} delete)`,
  );
  printer.plain(
    `  ingresses stored without metadata.managedFields: ${
      stripped ? printer.style("green", "✔") : printer.style("red", "✘")
    } · ledger = initial + created − deleted equals the store size`,
  );
  printer.plain();
  printer.plain(
    ok
      ? printer.style("green", "all good")
      : printer.style("red", "FAILED: stores and server differ"),
  );
  return ok ? 0 : 1;
}
