import assert from "node:assert/strict";
import { invalidOptionsMessage, optionNamesProblem } from "./_option_checks.ts";

const known = { interval: true, merge: true, onChange: true } as const;

Deno.test("option names: known names pass, anything but an object is left alone", () => {
  assert.equal(
    optionNamesProblem({ known, value: { interval: 1 }, type: "T" }),
    undefined,
  );
  for (const value of [undefined, null, 3, "x"]) {
    assert.equal(optionNamesProblem({ known, value, type: "T" }), undefined);
  }
});

Deno.test("option names: an unknown name, with the known one it most likely meant", () => {
  assert.deepEqual(
    optionNamesProblem({
      known,
      value: { intervall: 1 },
      type: "DebounceGroupOptions",
    }),
    {
      field: "intervall",
      message: "is not a DebounceGroupOptions option (did you mean interval?)",
    },
  );
  // Case only, and a swap of two letters.
  assert.match(
    optionNamesProblem({ known, value: { onchange: 1 }, type: "T" })!.message,
    /did you mean onChange\?/,
  );
  assert.match(
    optionNamesProblem({ known, value: { mrege: 1 }, type: "T" })!.message,
    /did you mean merge\?/,
  );
  // Nothing close: no guess.
  assert.deepEqual(
    optionNamesProblem({ known, value: { clock: 1 }, type: "T" }),
    { field: "clock", message: "is not a T option" },
  );
});

Deno.test("option names: several at once, every one named", () => {
  assert.deepEqual(
    optionNamesProblem({ known, value: { a: 1, intervall: 2 }, type: "T" }),
    {
      field: "a, intervall",
      message:
        "a is not a T option; intervall is not a T option (did you mean interval?)",
    },
  );
});

Deno.test("option names: a name put in the wrong argument says where it belongs", () => {
  const problem = optionNamesProblem({
    known: { server: true },
    value: { server: "x", clock: {} },
    type: "FetchClientConfig",
    place: "the config (the first argument)",
    short: "the config",
  }, {
    known: { clock: true },
    value: { server: "y" },
    type: "FetchClientOptions",
    place: "the second argument (FetchClientOptions)",
  }, {
    known: { command: true },
    value: { comand: "x" },
    type: "ExecPluginConfig",
    prefix: "exec.",
  });
  assert.deepEqual(problem, {
    field: "clock, server, exec.comand",
    message:
      "clock belongs in the second argument (FetchClientOptions), not in the config; server belongs in the config (the first argument), not in FetchClientOptions; exec.comand is not an ExecPluginConfig option (did you mean command?)",
  });
  assert.equal(
    invalidOptionsMessage("FetchClient config", problem!),
    `Invalid FetchClient config: ${problem!.field}: ${problem!.message}`,
  );
});
