import type { KubeObject } from "../mod.ts";
import type { Printer } from "./output.ts";

type Data = Record<string, string>;

/**
 * Prints what the SingleWatcher on a Secret reports: which keys changed
 * (never their values), deletes and re-creations.
 */
export class SecretReporter {
  changes = 0;
  deletes = 0;
  readonly #printer: Printer;
  #last: KubeObject | null = null;

  constructor(printer: Printer) {
    this.#printer = printer;
  }

  onSyncComplete = (obj: KubeObject | null): void => {
    this.#last = obj;
    this.#printer.line(
      "secret",
      obj
        ? `${describe(obj)} synced: ${Object.keys(data(obj)).length} keys (${
          Object.keys(data(obj)).join(", ")
        }), rv ${obj.metadata.resourceVersion}`
        : "config Secret synced: not present",
    );
  };

  onChange = (obj: KubeObject | null): void => {
    const previous = this.#last;
    this.#last = obj;
    this.changes++;
    if (obj === null) {
      this.deletes++;
      this.#printer.line(
        "secret",
        `${previous ? describe(previous) : "config Secret"} deleted`,
      );
      return;
    }
    if (!previous || previous.metadata.uid !== obj.metadata.uid) {
      this.#printer.line(
        "secret",
        `${describe(obj)} created (uid ${
          obj.metadata.uid?.slice(0, 8)
        }…), rv ${obj.metadata.resourceVersion}`,
      );
      return;
    }
    const before = data(previous), after = data(obj);
    const changed = [
      ...new Set([...Object.keys(before), ...Object.keys(after)]),
    ]
      .filter((k) => before[k] !== after[k]);
    this.#printer.line(
      "secret",
      `${describe(obj)} changed: ${
        changed.length > 0 ? changed.join(", ") : "metadata only"
      } (rv ${previous.metadata.resourceVersion} → ${obj.metadata.resourceVersion})`,
    );
  };
}

function describe(obj: KubeObject): string {
  return `${obj.metadata.namespace}/${obj.metadata.name}`;
}

function data(obj: KubeObject): Data {
  return (obj.data ?? {}) as Data;
}
