// Debouncer bookkeeping per recorded change: what every watch event costs
// on top of the store write. A FakeClock keeps real timers out of the loop.

import { Debouncer } from "../watcher/debouncer.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { silentLogger } from "../logger.ts";

let calls = 0;
const clock = new FakeClock();
const debouncer = new Debouncer({
  interval: 2_000,
  onChange: () => {
    calls++;
  },
  clock,
  logger: silentLogger,
});

Deno.bench("Debouncer.recordUpdate (inside the refractory period)", {
  group: "debouncer",
  baseline: true,
}, () => {
  debouncer.recordUpdate();
});
Deno.bench("Debouncer.recordCreate (inside the refractory period)", {
  group: "debouncer",
}, () => {
  debouncer.recordCreate();
});

const syncing = new Debouncer({
  interval: 2_000,
  onChange: () => {
    calls++;
  },
  clock,
  logger: silentLogger,
});
syncing.setSyncMode(true);
Deno.bench("Debouncer.recordCreate (sync mode)", { group: "debouncer" }, () => {
  syncing.recordCreate();
});

globalThis.addEventListener("unload", () => {
  if (calls < 0) console.log(calls);
});
