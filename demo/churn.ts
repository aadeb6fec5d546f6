import type { KubeObject } from "../mod.ts";
import type { FakeApiServer } from "../testing/mod.ts";
import {
  b64,
  CONFIG_SECRET,
  configSecret,
  endpointSlice,
  ENDPOINTSLICES,
  ingress,
  INGRESSES,
  newApp,
  OTHER_CLASS,
  OUR_CLASS,
  podEndpoints,
  type Rng,
  SECRETS,
  service,
  SERVICE_NAME_LABEL,
  SERVICES,
} from "./cluster.ts";
import { sleep } from "./wait.ts";

/** How often the churn writes. */
export interface ChurnOptions {
  /** Pause between two ordinary writes, in ms. */
  stepMs: number;
  /** Pause between two bursts, in ms. */
  burstEveryMs: number;
  /** Pause between two changes of the config Secret, in ms. */
  secretEveryMs: number;
  /** Told about each burst, in a few words. */
  onBurst(what: string): void;
}

type Write = () => void;

const BURSTS = ["restart", "release", "migration", "restart"] as const;

/**
 * Writes to the fake cluster on timers: a steady trickle of endpoint,
 * ingress and service changes (creates, updates, status-only updates,
 * deletes, ingress class switches), a burst now and then (many writes in a
 * few hundred ms, so the watchers' debouncing shows), and a config Secret
 * change every few seconds.
 */
export class Churn {
  /** Writes made so far. */
  writes = 0;
  readonly #server: FakeApiServer;
  readonly #rng: Rng;
  readonly #options: ChurnOptions;
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  readonly #limits: { min: number; max: number };
  #running = false;
  #maxconn = 2000;
  #bursts = 0;

  constructor(server: FakeApiServer, rng: Rng, options: ChurnOptions) {
    this.#server = server;
    this.#rng = rng;
    this.#options = options;
    const services = server.list(SERVICES).length;
    this.#limits = {
      min: Math.floor(services * 0.7),
      max: Math.ceil(services * 1.3),
    };
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#every(this.#options.stepMs, () => this.#write(this.#step()));
    this.#every(this.#options.burstEveryMs, () => this.#burst());
    this.#every(this.#options.secretEveryMs, () => this.#secretChange());
  }

  /** Cancels every pending write. */
  stop(): void {
    this.#running = false;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }

  /** Deletes the config Secret, and recreates it after `afterMs`. */
  async recreateSecret(afterMs: number, signal: AbortSignal): Promise<void> {
    const { namespace, name } = CONFIG_SECRET;
    this.#write(() => this.#server.delete(SECRETS, namespace, name));
    await sleep(afterMs, signal);
    this.#write(() =>
      this.#server.create(
        SECRETS,
        configSecret(this.#maxconn, this.#rng.suffix()),
      )
    );
  }

  #every(ms: number, fn: () => void): void {
    // Jitter keeps the trickle from looking like a metronome.
    const wait = ms * (0.6 + 0.8 * this.#rng.next());
    this.#later(wait, () => {
      fn();
      this.#every(ms, fn);
    });
  }

  #later(ms: number, fn: () => void): void {
    if (!this.#running) return;
    const t = setTimeout(() => {
      this.#timers.delete(t);
      if (this.#running) fn();
    }, ms);
    this.#timers.add(t);
  }

  #write(write: Write): void {
    try {
      write();
      this.writes++;
    } catch {
      // A write that lost a race (object gone) is simply skipped.
    }
  }

  /** Writes spaced `gapMs` apart. */
  #sequence(writes: Write[], gapMs: number): void {
    writes.forEach((w, i) => this.#later(i * gapMs, () => this.#write(w)));
  }

  // --- Ordinary writes -------------------------------------------------------

  #step(): Write {
    const rng = this.#rng;
    const roll = rng.next();
    const services = this.#server.list(SERVICES).length;
    if (roll < 0.4) return this.#podChurn();
    if (roll < 0.55) return this.#ingressSpec();
    if (roll < 0.65) return this.#ingressStatus();
    if (roll < 0.7) return this.#ingressClassSwitch();
    if (roll < 0.8 && services < this.#limits.max) return this.#deploy();
    if (roll < 0.88 && services > this.#limits.min) return this.#undeploy();
    return this.#serviceTweak();
  }

  #random(list: KubeObject[]): KubeObject | undefined {
    return list.length === 0 ? undefined : this.#rng.pick(list);
  }

  #podChurn(slice = this.#random(this.#server.list(ENDPOINTSLICES))): Write {
    return () => {
      if (!slice) return;
      const { namespace = "", name = "" } = slice.metadata;
      this.#server.patch(ENDPOINTSLICES, namespace, name, {
        endpoints: podEndpoints(this.#rng.int(1, 4), this.#rng),
      });
    };
  }

  #ingressSpec(): Write {
    return () => {
      const ing = this.#random(this.#server.list(INGRESSES));
      if (!ing) return;
      const { namespace = "", name = "" } = ing.metadata;
      const fresh = ingress(
        namespace,
        name,
        String(
          (ing.spec as { ingressClassName?: string }).ingressClassName,
        ),
      );
      const rules = (fresh.spec as { rules: { http: { paths: unknown[] } }[] })
        .rules;
      rules[0].http.paths.push({
        path: `/v${this.#rng.int(2, 9)}`,
        pathType: "Prefix",
        backend: { service: { name, port: { number: 80 } } },
      });
      this.#server.patch(INGRESSES, namespace, name, { spec: fresh.spec });
    };
  }

  #ingressStatus(): Write {
    return () => {
      const ing = this.#random(this.#server.list(INGRESSES));
      if (!ing) return;
      ing.status = {
        loadBalancer: { ingress: [{ ip: `192.0.2.${this.#rng.int(1, 254)}` }] },
      };
      this.#server.updateStatus(INGRESSES, ing);
    };
  }

  #ingressClassSwitch(ing = this.#random(this.#server.list(INGRESSES))): Write {
    return () => {
      if (!ing) return;
      const { namespace = "", name = "" } = ing.metadata;
      const current = (ing.spec as { ingressClassName?: string })
        .ingressClassName;
      this.#server.patch(INGRESSES, namespace, name, {
        spec: {
          ingressClassName: current === OUR_CLASS ? OTHER_CLASS : OUR_CLASS,
        },
      });
    };
  }

  #deploy(): Write {
    return () => {
      const spot = newApp(this.#server, this.#rng);
      if (!spot) return;
      for (const w of this.#deployWrites(spot.namespace, spot.app)) w();
    };
  }

  #deployWrites(namespace: string, app: string): Write[] {
    const server = this.#server, rng = this.#rng;
    const className = rng.chance(0.7) ? OUR_CLASS : OTHER_CLASS;
    return [
      () => server.create(SERVICES, service(namespace, app)),
      () => server.create(ENDPOINTSLICES, endpointSlice(namespace, app, rng)),
      () => server.create(INGRESSES, ingress(namespace, app, className)),
    ];
  }

  #undeploy(): Write {
    return () => {
      const svc = this.#random(this.#server.list(SERVICES));
      if (!svc || svc.metadata.namespace === CONFIG_SECRET.namespace) return;
      for (const w of this.#undeployWrites(svc)) w();
    };
  }

  #undeployWrites(svc: KubeObject): Write[] {
    const server = this.#server;
    const { namespace = "", name = "" } = svc.metadata;
    const writes: Write[] = [];
    const hasIngress = server.list(INGRESSES, namespace)
      .some((i) => i.metadata.name === name);
    if (hasIngress) {
      writes.push(() => server.delete(INGRESSES, namespace, name));
    }
    for (const slice of this.#slicesOf(namespace, name)) {
      writes.push(() =>
        server.delete(ENDPOINTSLICES, namespace, slice.metadata.name!)
      );
    }
    writes.push(() => server.delete(SERVICES, namespace, name));
    return writes;
  }

  #slicesOf(namespace: string, app: string): KubeObject[] {
    return this.#server.list(ENDPOINTSLICES, namespace)
      .filter((s) => s.metadata.labels?.[SERVICE_NAME_LABEL] === app);
  }

  #serviceTweak(): Write {
    return () => {
      const svc = this.#random(this.#server.list(SERVICES));
      if (!svc) return;
      const { namespace = "", name = "" } = svc.metadata;
      this.#server.patch(SERVICES, namespace, name, {
        metadata: {
          annotations: { "demo/revision": String(this.#rng.int(1, 1000)) },
        },
      });
    };
  }

  // --- Bursts and the Secret -------------------------------------------------

  #burst(): void {
    const rng = this.#rng, server = this.#server;
    const kind = BURSTS[this.#bursts++ % BURSTS.length];
    if (kind === "restart") {
      const svc = this.#random(server.list(SERVICES));
      if (!svc) return;
      const { namespace = "", name = "" } = svc.metadata;
      const slices = this.#slicesOf(namespace, name);
      const writes: Write[] = [];
      // A rolling restart replaces each pod in turn: one slice write per pod.
      for (let round = 0; round < Math.max(4, 8 / slices.length); round++) {
        for (const s of slices) writes.push(this.#podChurn(s));
      }
      this.#options.onBurst(
        `rolling restart of ${namespace}/${name}: ${writes.length} endpointslice writes`,
      );
      this.#sequence(writes, 40);
    } else if (kind === "release") {
      const writes: Write[] = [];
      const names: string[] = [];
      for (let i = 0; i < 3; i++) {
        const spot = newApp(server, rng);
        if (!spot || names.includes(`${spot.namespace}/${spot.app}`)) continue;
        names.push(`${spot.namespace}/${spot.app}`);
        writes.push(...this.#deployWrites(spot.namespace, spot.app));
      }
      if (writes.length === 0) return;
      this.#options.onBurst(
        `release of ${names.join(", ")}: ${writes.length} creates`,
      );
      this.#sequence(writes, 30);
    } else {
      const ings = server.list(INGRESSES);
      const picked = new Set<KubeObject>();
      for (let i = 0; i < 4 && ings.length > 0; i++) picked.add(rng.pick(ings));
      this.#options.onBurst(
        `ingress class migration: ${picked.size} ingresses switch ${OUR_CLASS} ⇄ ${OTHER_CLASS}`,
      );
      this.#sequence([...picked].map((i) => this.#ingressClassSwitch(i)), 50);
    }
  }

  #secretChange(): void {
    const { namespace, name } = CONFIG_SECRET;
    this.#write(() => {
      if (this.#rng.chance(0.5)) {
        this.#maxconn += 500;
        this.#server.patch(SECRETS, namespace, name, {
          data: { maxconn: b64(String(this.#maxconn)) },
        });
      } else {
        this.#server.patch(SECRETS, namespace, name, {
          data: { "stats-password": b64(this.#rng.suffix()) },
        });
      }
    });
  }
}
