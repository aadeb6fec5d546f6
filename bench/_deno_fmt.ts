/**
 * Hands the files a bench run wrote to `deno fmt`, which covers Markdown
 * and SVG, so that `deno fmt --check` stays clean after a run.
 *
 * @module
 */

/** Formats `paths` in place; a file fmt excludes or cannot read is left. */
export async function denoFmt(paths: string[]): Promise<void> {
  await new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--quiet", ...paths],
    stdout: "null",
    stderr: "null",
  }).output();
}
