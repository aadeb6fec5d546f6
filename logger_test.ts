import assert from "node:assert/strict";
import { consoleLogger, type LogLevel, silentLogger } from "./logger.ts";

/** Runs `code` in a fresh Deno and returns what it wrote to each stream. */
async function run(code: string): Promise<{ stdout: string; stderr: string }> {
  const { code: exit, stdout, stderr } = await new Deno.Command(
    Deno.execPath(),
    {
      args: ["eval", "--quiet", code],
      cwd: new URL(".", import.meta.url),
      stdin: "null",
      env: { NO_COLOR: "1" },
    },
  ).output();
  const text = new TextDecoder();
  assert.equal(exit, 0, text.decode(stderr));
  return { stdout: text.decode(stdout), stderr: text.decode(stderr) };
}

Deno.test("consoleLogger writes every level to stderr, nothing to stdout", async () => {
  const { stdout, stderr } = await run(`
    import { consoleLogger } from "./logger.ts";
    const logger = consoleLogger({ level: "debug" });
    console.log("tool output");
    logger.debug("d", { n: 1 });
    logger.info("i");
    logger.warn("w");
    logger.error("e", { error: new TypeError("bad") });
  `);
  assert.equal(stdout, "tool output\n");
  assert.equal(
    stderr,
    'DEBUG d {"n":1}\nINFO i\nWARN w\nERROR e {"error":"TypeError: bad"}\n',
  );
});

Deno.test("consoleLogger drops messages below its level", () => {
  const lines: string[] = [];
  const logger = consoleLogger({ level: "warn", write: (l) => lines.push(l) });
  logger.debug("no");
  logger.info("no");
  logger.warn("yes", {});
  logger.error("yes too", { resource: "services" });
  assert.deepEqual(lines, [
    "WARN yes",
    'ERROR yes too {"resource":"services"}',
  ]);
});

Deno.test("consoleLogger defaults to level info, printed through console.error", () => {
  const original = console.error;
  const seen: unknown[][] = [];
  console.error = (...args: unknown[]) => void seen.push(args);
  try {
    const logger = consoleLogger();
    logger.debug("hidden");
    logger.info("shown");
  } finally {
    console.error = original;
  }
  assert.deepEqual(seen, [["INFO shown"]]);
});

Deno.test("consoleLogger rejects an unknown level and a write that is not a function", () => {
  assert.throws(
    () => consoleLogger({ level: "verbose" as LogLevel }),
    (e: unknown) =>
      e instanceof RangeError &&
      e.message ===
        'Log level must be one of debug, info, warn, error, got "verbose"',
  );
  assert.throws(
    () => consoleLogger({ write: "stderr" as unknown as () => void }),
    TypeError,
  );
});

Deno.test("silentLogger drops everything", async () => {
  const { stdout, stderr } = await run(`
    import { silentLogger } from "./logger.ts";
    silentLogger.error("nothing");
  `);
  assert.equal(stdout + stderr, "");
  silentLogger.debug("still nothing");
});

Deno.test("consoleLogger describes fields JSON cannot encode instead of throwing", () => {
  const lines: string[] = [];
  const logger = consoleLogger({ write: (line) => lines.push(line) });
  const cycle: Record<string, unknown> = { name: "a" };
  cycle.self = cycle;
  logger.warn("Odd fields", {
    count: 3,
    version: 12n,
    cycle,
    broken: {
      toJSON: () => {
        throw new Error("no JSON here");
      },
    },
  });
  assert.equal(lines.length, 1);
  const fields = JSON.parse(lines[0].slice("WARN Odd fields ".length));
  assert.equal(fields.count, 3);
  assert.equal(fields.version, "12");
  assert.match(fields.cycle, /^\[not JSON: .*circular/i);
  assert.equal(fields.broken, "[not JSON: no JSON here]");
});
