// A controller on a fake API server and a fake clock, recording every
// reconcile: its key, what it saw, when it ran and how it ended.
import type { KubeObject } from "../types.ts";
import { FetchClient } from "../client/fetch_client.ts";
import { FakeApiServer } from "../testing/fake_api_server.ts";
import { mockFetch } from "../testing/mock_fetch.ts";
import { FakeClock, waitFor } from "../testing/fake_clock.ts";
import { RecordingLogger } from "../testing/recording_logger.ts";
import { MetricsRegistry } from "../metrics/registry.ts";
import { Controller } from "./controller.ts";
import type {
  ControllerConfig,
  ReconcileContext,
  ReconcileResult,
} from "./controller_config.ts";

export const WIDGETS = {
  group: "example.com",
  version: "v1",
  resource: "widgets",
};
export const CONFIGMAPS = { group: "", version: "v1", resource: "configmaps" };

/** One reconcile as it ran. */
export interface Run {
  readonly key: string;
  readonly attempt: number;
  /** The primary's resourceVersion at the start; undefined when absent. */
  readonly saw: string | undefined;
  readonly start: number;
  end?: number;
  aborted?: boolean;
}

export type Reconcile = (
  key: string,
  context: ReconcileContext,
) => void | ReconcileResult | Promise<void | ReconcileResult>;

export interface HarnessOptions {
  config?: Partial<ControllerConfig>;
  /** Runs before the controller is built (objects to list). */
  seed?: (server: FakeApiServer) => void;
}

export function widget(
  namespace: string,
  name: string,
  spec: Record<string, unknown> = { size: 1 },
): KubeObject {
  return {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { namespace, name },
    spec,
  };
}

export class ControllerHarness implements AsyncDisposable {
  readonly clock = new FakeClock();
  readonly server = new FakeApiServer({ clock: this.clock });
  readonly logger = new RecordingLogger();
  readonly registry = new MetricsRegistry();
  readonly client: FetchClient;
  readonly controller: Controller;
  readonly runs: Run[] = [];
  /** What each reconcile does besides being recorded; replace at will. */
  reconcile: Reconcile = () => {};
  #fetch: Disposable;
  #running: Promise<void> | undefined;

  constructor(options: HarnessOptions = {}) {
    this.server.registerResource({
      ...WIDGETS,
      kind: "Widget",
      namespaced: true,
      statusSubresource: true,
    });
    options.seed?.(this.server);
    this.#fetch = mockFetch(this.server);
    this.client = new FetchClient({ server: this.server.url });
    this.controller = new Controller(
      {
        name: "widgets",
        for: { gvr: WIDGETS, kind: "Widget" },
        reconcile: async (key, context) => {
          const run: Run = {
            key,
            attempt: context.attempt,
            saw: context.get()?.metadata.resourceVersion,
            start: this.clock.now(),
          };
          this.runs.push(run);
          try {
            return await this.reconcile(key, context);
          } finally {
            run.end = this.clock.now();
            run.aborted = context.signal.aborted;
          }
        },
        ...options.config,
      },
      this.client,
      {
        clock: this.clock,
        logger: this.logger,
        meter: this.registry,
      },
    );
  }

  start(): Promise<void> {
    return this.#running = this.controller.start();
  }

  /** Starts and waits until every store synced and `n` reconciles ended. */
  async started(n = 0): Promise<void> {
    this.start();
    await waitFor(() => this.controller.health().synced, {
      description: "synced",
    });
    await this.ended(n);
  }

  /** Waits until `n` reconciles have ended. */
  ended(n: number, description = `${n} reconciles ended`): Promise<void> {
    return waitFor(
      () => this.runs.filter((r) => r.end !== undefined).length >= n,
      { description },
    );
  }

  keys(): string[] {
    return this.runs.map((r) => r.key);
  }

  /** The sample values of `name` whose labels include `labels`. */
  metric(
    name: string,
    labels: Record<string, string> = {},
  ): number[] {
    const text = this.registry.render();
    const values: number[] = [];
    for (const line of text.split("\n")) {
      if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) {
        continue;
      }
      const ok = Object.entries(labels).every(([k, v]) =>
        line.includes(`${k}="${v}"`)
      );
      if (ok) values.push(Number(line.slice(line.lastIndexOf(" ") + 1)));
    }
    return values;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.controller.stop();
    await this.#running;
    this.client[Symbol.dispose]();
    this.#fetch[Symbol.dispose]();
    await this.server[Symbol.asyncDispose]();
  }
}
