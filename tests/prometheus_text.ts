/**
 * Reads Prometheus text with the Prometheus project's own parser
 * (`tools/prometheus_text_check.py` on prometheus_client, provisioned by
 * `tools/prometheus_parser.sh`): what a scrape would make of it.
 *
 * ```ts ignore
 * Deno.test(needs(prometheusParserMissing, { name: "…", async fn() {
 *   const families = await parsePrometheusText(registry.render());
 * } }));
 * ```
 */
import { prometheusParserPython } from "./requirements.ts";

/** One family as the parser read it. */
export interface ParsedFamily {
  type: string;
  help: string;
  samples: [name: string, labels: Record<string, string>, value: number][];
}

const CHECK = new URL("../tools/prometheus_text_check.py", import.meta.url);

/** The families of `text`; throws with the parser's message when it refuses it. */
export async function parsePrometheusText(
  text: string,
): Promise<Record<string, ParsedFamily>> {
  if (prometheusParserPython === undefined) {
    throw new Error("The Prometheus text parser is not provisioned");
  }
  const child = new Deno.Command(prometheusParserPython, {
    args: [CHECK.pathname],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  if (code !== 0) {
    throw new Error(
      `The Prometheus parser refused the text: ${
        new TextDecoder().decode(stderr).trim()
      }`,
    );
  }
  return JSON.parse(new TextDecoder().decode(stdout));
}

/**
 * Every sample line of `text` as `name{labels}` → value, without a parser:
 * for tests that compare series exactly.
 */
export function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}
