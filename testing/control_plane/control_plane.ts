import { assertOptionNames } from "../../_internal/_option_checks.ts";
import {
  FetchClient,
  type FetchClientOptions,
} from "../../client/fetch_client.ts";
import { etcdCompact, etcdRevision } from "./_etcd.ts";
import { lastLines, makePki, type Pki, randomHex } from "./_pki.ts";
import { ADDRESS_IN_USE, freePort, releasePort } from "./_ports.ts";
import { ComponentProcess } from "./_process.ts";
import { type HostedPlane, hostPlane, releasePlane } from "./_host_exit.ts";
import {
  hostEnv,
  makeDir,
  makeTempDir,
  removeTree,
  removeTreeSync,
  runToEnd,
  writeTextFile,
} from "./_runtime.ts";
import { type ControlPlaneBinaries, locateBinaries } from "./binaries.ts";
import {
  ControlPlaneBinariesNotFoundError,
  ControlPlaneError,
} from "./errors.ts";

const DEFAULT_START_TIMEOUT_MS = 60_000;
/** Lines of a component's log quoted in an error. */
const LOG_TAIL_LINES = 30;
/** Attempts with other ports when a component finds its port taken. */
const PORT_ATTEMPTS = 5;
/** How often a starting component is asked whether it is ready. */
const POLL_MS = 100;
/** How long one readiness request may take. */
const PROBE_TIMEOUT_MS = 5_000;

/** The user with every permission (group `system:masters`). */
const ADMIN = "admin";
/** The user with no permission beyond discovery (no RBAC binding). */
const RESTRICTED = "restricted";

/** A user the API server knows, with its bearer token. */
export interface ControlPlaneUser {
  /** The user name, as RBAC subjects name it (`kind: User`). */
  readonly name: string;
  /** Its bearer token (in the API server's static token file). */
  readonly token: string;
  /** Its groups (every user is also in `system:authenticated`). */
  readonly groups: readonly string[];
}

/** Another user for the control plane's token file. */
export interface ControlPlaneUserSpec {
  /** The user name: letters, digits and `-._:@`. */
  name: string;
  /**
   * Its groups.
   *
   * @default {[]}
   */
  groups?: string[];
}

/**
 * Ports to listen on when they are free (all on 127.0.0.1); a taken port
 * is replaced by a free one.
 */
export interface ControlPlanePorts {
  /** kube-apiserver's secure port. */
  apiServer?: number;
  /** etcd's client port. */
  etcdClient?: number;
  /** etcd's peer port. */
  etcdPeer?: number;
}

/** How {@linkcode ControlPlane.start} starts etcd and kube-apiserver. */
export interface ControlPlaneOptions {
  /**
   * Paths of the binaries; those not given are found by
   * {@linkcode findControlPlaneBinaries}.
   */
  binaries?: Partial<ControlPlaneBinaries>;
  /**
   * The environment variables binary discovery reads.
   *
   * @default {the process's environment}
   */
  env?: Record<string, string | undefined>;
  /**
   * How long etcd and kube-apiserver may take to become ready, in ms;
   * past it, whatever was started is stopped and the start fails.
   *
   * @default {60000}
   */
  startTimeoutMs?: number;
  /**
   * Users besides `admin` (group `system:masters`) and `restricted` (no
   * permissions: bind roles to it in a test).
   *
   * @default {[]}
   */
  users?: ControlPlaneUserSpec[];
  /**
   * kube-apiserver's watch cache (`--watch-cache`). Without it, every
   * LIST and WATCH goes to etcd: a watch from a compacted resourceVersion
   * is 410 at once (the cache would serve it from memory), but there are
   * no bookmarks and no `sendInitialEvents`.
   *
   * @default {true}
   */
  watchCache?: boolean;
  /**
   * How often kube-apiserver compacts etcd (`--etcd-compaction-interval`),
   * in ms; `0` never. {@linkcode ControlPlane.compact} compacts on demand.
   *
   * @default {300000}
   */
  etcdCompactionIntervalMs?: number;
  /**
   * The shortest timeout kube-apiserver gives a watch that asked for none
   * (`--min-request-timeout`), in seconds: such a watch ends after between
   * one and two times this.
   *
   * @default {1800}
   */
  minRequestTimeoutSeconds?: number;
  /** More kube-apiserver flags; they override the control plane's own. */
  apiServerArgs?: string[];
  /** More etcd flags; they override the control plane's own. */
  etcdArgs?: string[];
  /** Preferred ports; by default any free ones. */
  ports?: ControlPlanePorts;
  /**
   * The folder the control plane's temporary folder is made in.
   *
   * @default {the system's temporary folder}
   */
  workDir?: string;
  /**
   * The openssl binary that makes the certificates.
   *
   * @default {"openssl"}
   */
  openssl?: string;
}

/** The names {@linkcode ControlPlane.start} takes. */
const OPTION_NAMES: Readonly<Record<keyof ControlPlaneOptions, true>> = {
  binaries: true,
  env: true,
  startTimeoutMs: true,
  users: true,
  watchCache: true,
  etcdCompactionIntervalMs: true,
  minRequestTimeoutSeconds: true,
  apiServerArgs: true,
  etcdArgs: true,
  ports: true,
  workDir: true,
  openssl: true,
};

/** A kubectl run, for {@linkcode ControlPlane.kubectlWith}. */
export interface KubectlOptions {
  /** kubectl's arguments. */
  args: string[];
  /** Text written to kubectl's stdin (for `apply -f -`). */
  stdin?: string;
  /**
   * The user to run as (the kubeconfig context of the same name).
   *
   * @default {"admin"}
   */
  user?: string;
  /** Another kubeconfig file instead of {@linkcode ControlPlane.kubeconfigPath}. */
  kubeconfig?: string;
  /** More environment variables (kubectl gets a clean environment). */
  env?: Record<string, string>;
}

/** What a kubectl run printed. */
export interface KubectlResult {
  /** Whether it exited with code 0. */
  success: boolean;
  /** Its exit code. */
  code: number;
  /** Its standard output. */
  stdout: string;
  /** Its standard error. */
  stderr: string;
}

interface Settings {
  binaries: ControlPlaneBinaries;
  dir: string;
  timeoutMs: number;
  options: ControlPlaneOptions;
  users: ControlPlaneUser[];
}

/**
 * A real etcd and kube-apiserver on 127.0.0.1, started for tests (an
 * envtest for TypeScript): no nodes, no controller manager, no scheduler.
 *
 * {@linkcode ControlPlane.start} finds the binaries (see
 * {@linkcode findControlPlaneBinaries}), makes a CA and a serving
 * certificate with openssl, starts etcd on free loopback ports with a
 * temporary data folder, then kube-apiserver on a free secure port with a
 * static token file, RBAC authorization and a service-account signing
 * key, and waits for `/readyz` and the `default` namespace. Two users
 * exist: `admin` (`system:masters`) and `restricted` (no permissions until
 * a test binds a role to it).
 *
 * The handle gives the URL, the CA, a kubectl-compatible kubeconfig file,
 * {@linkcode FetchClient}s per user, kubectl, `compact()` (etcd
 * compaction), `restartApiServer()` (kill -9 and start again on the same
 * etcd and port) and `stop()` / `await using` (kills both by PID and
 * removes the temporary folder).
 *
 * A control plane does not outlive its host. While one runs, SIGINT and
 * SIGTERM to the host stop it (both programs killed, the folder removed)
 * and are then raised again, so the host ends as the signal ends it
 * (unless a `process.on` listener of the host's own listens for that
 * signal: then that listener decides); the host's exit (`Deno.exit()`,
 * `process.exit()`, the `unload` or `exit` event) kills both and removes
 * the folder at once; and each program runs under a watchdog that kills it
 * when the host is gone without any of these (`kill -9`, a crash).
 *
 * Without a controller manager, nothing acts on objects: namespaces stay
 * `Terminating` once deleted, owner references are not collected, status
 * is only what a test writes to `/status`.
 *
 * Runs on Deno (with `--allow-run --allow-read --allow-write --allow-net
 * --allow-env`), on Node (22.18 or later) and on Bun, where the processes
 * start through `node:child_process`. POSIX only: the programs run under
 * `/bin/sh`.
 *
 * @example A ConfigMap through the API and kubectl
 * ```ts ignore
 * import { ControlPlane } from "@haptic/k8s-watcher/testing/control-plane";
 * import assert from "node:assert/strict";
 *
 * await using plane = await ControlPlane.start();
 * using client = plane.client();
 * await client.performRequest({
 *   method: "POST",
 *   path: "/api/v1/namespaces/default/configmaps",
 *   bodyJson: { metadata: { name: "settings" }, data: { color: "blue" } },
 *   expectJson: true,
 * });
 * const color = await plane.kubectl(
 *   "get", "configmap", "settings", "-o", "jsonpath={.data.color}",
 * );
 * assert.equal(color, "blue");
 * ```
 */
export class ControlPlane implements AsyncDisposable {
  #settings: Settings;
  #pki: Pki | undefined;
  #etcd: ComponentProcess | undefined;
  #apiServer: ComponentProcess | undefined;
  #etcdPorts: number[] = [];
  #etcdUrl = "";
  #apiServerPort = 0;
  /** The admin's client that asks kube-apiserver whether it is ready. */
  #probeClient: FetchClient | undefined;
  #clients = new Set<FetchClient>();
  #stopping: Promise<void> | undefined;
  /**
   * Set the moment `stop()` is called, before its first await: from then
   * on no component starts, so a restart under way cannot leave a process
   * behind the stop.
   */
  #stopped = false;
  /** Set once `start()` has made it ready. */
  #ready = false;
  /** What the host's signals and exit stop (see `_host_exit.ts`). */
  #hosted: HostedPlane = {
    stop: () => this.stop(),
    stopNow: () => this.#stopNow(),
  };

  private constructor(settings: Settings) {
    this.#settings = settings;
  }

  /**
   * Starts etcd and kube-apiserver and waits until both are ready.
   *
   * @example A shorter start timeout and a third user
   * ```ts ignore
   * import { ControlPlane } from "@haptic/k8s-watcher/testing/control-plane";
   *
   * await using plane = await ControlPlane.start({
   *   startTimeoutMs: 30_000,
   *   users: [{ name: "auditor", groups: ["auditors"] }],
   * });
   * console.log(plane.url, plane.users.map((u) => u.name));
   * ```
   *
   * @param options Binaries, users, timeouts and kube-apiserver settings.
   * @returns The running control plane.
   * @throws {ControlPlaneBinariesNotFoundError} When a binary is missing.
   * @throws {ControlPlaneError} When a component exits while starting, is
   * not ready within `startTimeoutMs`, or openssl is missing or fails;
   * whatever was started is stopped first.
   */
  static async start(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
    assertOptionNames(
      "ControlPlane options",
      OPTION_NAMES,
      options,
      "ControlPlaneOptions",
    );
    const timeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new TypeError(
        `startTimeoutMs must be a positive number of milliseconds, got ${timeoutMs}`,
      );
    }
    const users = makeUsers(options.users ?? []);
    const binaries = await resolveBinaries(options);
    const dir = await makeTempDir(
      "k8s-watcher-control-plane-",
      options.workDir,
    );
    const plane = new ControlPlane({
      binaries,
      dir,
      timeoutMs,
      options,
      users,
    });
    // From here on, the host's signals and exit stop it too.
    hostPlane(plane.#hosted);
    try {
      await plane.#start(Date.now() + timeoutMs);
    } catch (error) {
      await plane.stop();
      throw error;
    }
    return plane;
  }

  /** The API server's URL, `https://127.0.0.1:<port>`. */
  get url(): string {
    return `https://127.0.0.1:${this.#apiServerPort}`;
  }

  /** The CA certificate (PEM) that signs the API server's certificate. */
  get caPem(): string {
    return this.#pki?.caPem ?? "";
  }

  /** A file holding {@linkcode ControlPlane.caPem}. */
  get caFile(): string {
    return this.#pki?.caFile ?? "";
  }

  /**
   * A kubeconfig file (JSON, which kubectl reads as YAML) with a context
   * per user, named after it; the current context is `admin`.
   */
  get kubeconfigPath(): string {
    return `${this.#settings.dir}/kubeconfig`;
  }

  /** etcd's client URL, `http://127.0.0.1:<port>`. */
  get etcdUrl(): string {
    return this.#etcdUrl;
  }

  /**
   * A temporary folder for the test's own files (manifests, kubeconfigs),
   * removed by {@linkcode ControlPlane.stop}.
   */
  get dir(): string {
    return this.#settings.dir;
  }

  /** The binaries it runs. */
  get binaries(): ControlPlaneBinaries {
    return { ...this.#settings.binaries };
  }

  /** `admin`, `restricted` and the users of the `users` option. */
  get users(): readonly ControlPlaneUser[] {
    return this.#settings.users;
  }

  /**
   * A user's bearer token.
   *
   * @example The restricted user's token, for a kubeconfig of one's own
   * ```ts ignore
   * import { ControlPlane } from "@haptic/k8s-watcher/testing/control-plane";
   *
   * await using plane = await ControlPlane.start();
   * const token = plane.token("restricted");
   * ```
   *
   * @param user The user name (default `admin`).
   * @returns The token.
   * @throws {TypeError} For a user the control plane does not have.
   */
  token(user: string = ADMIN): string {
    return this.#user(user).token;
  }

  /**
   * A {@linkcode FetchClient} for the API server as `user`, trusting its
   * CA. {@linkcode ControlPlane.stop} closes any still open.
   *
   * @example Listing namespaces as admin, and a 403 as the restricted user
   * ```ts ignore
   * import { ControlPlane } from "@haptic/k8s-watcher/testing/control-plane";
   * import { httpStatusOf } from "@haptic/k8s-watcher/client";
   * import assert from "node:assert/strict";
   *
   * await using plane = await ControlPlane.start();
   * using admin = plane.client();
   * await admin.performRequest({ method: "GET", path: "/api/v1/namespaces", expectJson: true });
   * using restricted = plane.client("restricted");
   * const denied = await restricted
   *   .performRequest({ method: "GET", path: "/api/v1/namespaces", expectJson: true })
   *   .catch(httpStatusOf);
   * assert.equal(denied?.code, 403);
   * ```
   *
   * @param user The user name (default `admin`).
   * @param options The client's runtime options.
   * @returns A client; close it (or `using`) when done.
   */
  client(user: string = ADMIN, options?: FetchClientOptions): FetchClient {
    const client = new FetchClient(
      { server: this.url, token: this.#user(user).token, caData: this.caPem },
      { source: `control plane (user "${user}")`, ...options },
    );
    this.#clients.add(client);
    return client;
  }

  /**
   * Runs kubectl as admin against the API server and returns what it
   * printed on stdout.
   *
   * @example Applying a manifest from a file
   * ```ts ignore
   * import { ControlPlane } from "@haptic/k8s-watcher/testing/control-plane";
   *
   * await using plane = await ControlPlane.start();
   * await Deno.writeTextFile(`${plane.dir}/cm.yaml`, [
   *   "apiVersion: v1",
   *   "kind: ConfigMap",
   *   "metadata: { name: web, namespace: default }",
   *   "data: { color: blue }",
   * ].join("\n"));
   * console.log(await plane.kubectl("apply", "-f", `${plane.dir}/cm.yaml`));
   * ```
   *
   * @param args kubectl's arguments.
   * @returns Its standard output.
   * @throws {ControlPlaneError} When kubectl exits with another code than 0
   * (the message quotes the last 30 lines of its stderr).
   */
  async kubectl(...args: string[]): Promise<string> {
    const result = await this.kubectlWith({ args });
    if (!result.success) {
      throw new ControlPlaneError(
        "kubectl",
        `kubectl ${args.join(" ")} exited with code ${result.code}`,
        lastLines(result.stderr, LOG_TAIL_LINES),
      );
    }
    return result.stdout;
  }

  /**
   * Runs kubectl with stdin, as another user or with another kubeconfig,
   * and returns its exit code and output whatever the code.
   *
   * @example Applying from stdin as the restricted user
   * ```ts ignore
   * import { ControlPlane } from "@haptic/k8s-watcher/testing/control-plane";
   * import assert from "node:assert/strict";
   *
   * await using plane = await ControlPlane.start();
   * const result = await plane.kubectlWith({
   *   args: ["apply", "-f", "-"],
   *   user: "restricted",
   *   stdin: JSON.stringify({
   *     apiVersion: "v1",
   *     kind: "ConfigMap",
   *     metadata: { name: "web", namespace: "default" },
   *   }),
   * });
   * assert.equal(result.success, false);
   * assert.match(result.stderr, /forbidden/);
   * ```
   *
   * @param options Arguments, stdin, user, kubeconfig and environment.
   * @returns Exit code, stdout and stderr.
   */
  async kubectlWith(options: KubectlOptions): Promise<KubectlResult> {
    this.#checkRunning("kubectl");
    const args = options.kubeconfig
      ? [`--kubeconfig=${options.kubeconfig}`, ...options.args]
      : [
        `--kubeconfig=${this.kubeconfigPath}`,
        `--context=${this.#user(options.user ?? ADMIN).name}`,
        ...options.args,
      ];
    const output = await runToEnd(this.#settings.binaries.kubectl, {
      args,
      env: {
        // Its discovery cache goes under HOME, inside the temporary folder.
        HOME: `${this.#settings.dir}/home`,
        PATH: hostEnv().PATH ?? "/usr/bin:/bin",
        ...options.env,
      },
      stdin: options.stdin,
    });
    return { success: output.code === 0, ...output };
  }

  /**
   * Compacts etcd's history at its current revision (through etcd's HTTP
   * gateway), as kube-apiserver does every five minutes: a WATCH or a
   * continued LIST from an older resourceVersion that reaches etcd is then
   * answered 410 Gone. (The watch cache keeps serving a watch from its own
   * window: see the `watchCache` option.)
   *
   * @example Compacting after some writes
   * ```ts ignore
   * import { ControlPlane } from "@haptic/k8s-watcher/testing/control-plane";
   *
   * await using plane = await ControlPlane.start({ watchCache: false });
   * const revision = await plane.compact();
   * console.log(`history before ${revision} is gone`);
   * ```
   *
   * @returns The revision compacted at.
   */
  async compact(): Promise<number> {
    this.#checkRunning("compact");
    const revision = await etcdRevision(this.#etcdUrl);
    await etcdCompact(this.#etcdUrl, revision);
    return revision;
  }

  /**
   * Kills kube-apiserver with SIGKILL (no graceful shutdown: open watches
   * and requests break) and starts it again on the same etcd and port,
   * then waits until it is ready, within the start timeout.
   *
   * @example A restart under a running watcher
   * ```ts ignore
   * import { ControlPlane } from "@haptic/k8s-watcher/testing/control-plane";
   *
   * await using plane = await ControlPlane.start();
   * await plane.restartApiServer();
   * ```
   *
   * @throws {ControlPlaneError} When it exits or is not ready in time.
   * @throws {Error} When {@linkcode ControlPlane.stop} is called before the
   * new kube-apiserver is ready (the stop kills it, or it never starts).
   */
  async restartApiServer(): Promise<void> {
    this.#checkRunning("restartApiServer");
    await this.#apiServer?.kill();
    this.#apiServer = undefined;
    await this.#startApiServer(Date.now() + this.#settings.timeoutMs, false);
  }

  /**
   * The last lines of a component's log, oldest first.
   *
   * @example Printing kube-apiserver's log when a test fails
   * ```ts ignore
   * import { ControlPlane } from "@haptic/k8s-watcher/testing/control-plane";
   *
   * await using plane = await ControlPlane.start();
   * console.log((await plane.logs("kube-apiserver", 50)).join("\n"));
   * ```
   *
   * @param component `etcd` or `kube-apiserver`.
   * @param lines How many lines (default 30).
   * @returns The lines; none once stopped.
   */
  async logs(
    component: "etcd" | "kube-apiserver",
    lines: number = LOG_TAIL_LINES,
  ): Promise<string[]> {
    const process = component === "etcd" ? this.#etcd : this.#apiServer;
    return (await process?.tail(lines)) ?? [];
  }

  /**
   * Stops kube-apiserver and etcd (SIGKILL, by PID), closes the clients
   * made by {@linkcode ControlPlane.client} and removes the temporary
   * folder. Idempotent. A {@linkcode ControlPlane.restartApiServer} under
   * way starts nothing more and rejects.
   *
   * @example Stopping explicitly
   * ```ts ignore
   * import { ControlPlane } from "@haptic/k8s-watcher/testing/control-plane";
   *
   * const plane = await ControlPlane.start();
   * try {
   *   // …
   * } finally {
   *   await plane.stop();
   * }
   * ```
   */
  stop(): Promise<void> {
    this.#stopped = true;
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  /**
   * Stops the control plane at the end of an `await using` block.
   *
   * @example
   * ```ts ignore
   * import { ControlPlane } from "@haptic/k8s-watcher/testing/control-plane";
   *
   * {
   *   await using plane = await ControlPlane.start();
   *   console.log(plane.url);
   * } // stopped here, even when the block throws
   * ```
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  async #stop(): Promise<void> {
    for (const client of this.#clients) client.close();
    this.#clients.clear();
    const errors: unknown[] = [];
    for (const process of [this.#apiServer, this.#etcd]) {
      await process?.kill().catch((error) => errors.push(error));
    }
    this.#probeClient?.close();
    this.#probeClient = undefined;
    for (const port of [this.#apiServerPort, ...this.#etcdPorts]) {
      if (port) releasePort(port);
    }
    await removeTree(this.#settings.dir).catch((error) => errors.push(error));
    releasePlane(this.#hosted);
    if (errors.length > 0) throw errors[0];
  }

  /**
   * The stop at the host's exit, where nothing can be awaited: both
   * programs killed (each waited for, briefly) and the folder removed.
   */
  #stopNow(): void {
    this.#stopped = true;
    for (const process of [this.#apiServer, this.#etcd]) process?.killNow();
    removeTreeSync(this.#settings.dir);
  }

  #checkRunning(what: string): void {
    if (this.#stopped) {
      throw new Error(`The control plane is stopped: ${what} needs it running`);
    }
  }

  /**
   * What a restart under way answers once `stop()` was called, and a start
   * under way once the host's signal stopped the plane (`start()` hands the
   * plane out only once it is ready, so nothing else can stop it earlier).
   */
  #stoppedMeanwhile(): Error {
    return new Error(
      this.#ready
        ? "The control plane was stopped while restartApiServer was starting kube-apiserver"
        : "The control plane was stopped while it was starting (a signal to the host)",
    );
  }

  #user(name: string): ControlPlaneUser {
    const user = this.#settings.users.find((u) => u.name === name);
    if (!user) {
      throw new TypeError(
        `The control plane has no user "${name}" (it has ${
          this.#settings.users.map((u) => `"${u.name}"`).join(", ")
        }): add it with the users option`,
      );
    }
    return user;
  }

  async #start(deadline: number): Promise<void> {
    const { dir, options, users } = this.#settings;
    await makeDir(`${dir}/pki`);
    await makeDir(`${dir}/home`);
    this.#pki = await makePki(`${dir}/pki`, options.openssl ?? "openssl");
    // The static token file: token,user,uid,"group,group".
    await writeTextFile(
      `${dir}/tokens.csv`,
      users.map((u) =>
        `${u.token},${u.name},${u.name}${
          u.groups.length > 0 ? `,"${u.groups.join(",")}"` : ""
        }\n`
      ).join(""),
    );
    await this.#startEtcd(deadline);
    await this.#startApiServer(deadline, true);
    await this.#writeKubeconfig();
    this.#ready = true;
  }

  async #startEtcd(deadline: number): Promise<void> {
    const { dir, binaries, options } = this.#settings;
    for (let attempt = 1;; attempt++) {
      const preferred = attempt === 1 ? options.ports : undefined;
      const client = await freePort(preferred?.etcdClient);
      const peer = await freePort(preferred?.etcdPeer);
      this.#etcdPorts.push(client, peer);
      this.#etcdUrl = `http://127.0.0.1:${client}`;
      const peerUrl = `http://127.0.0.1:${peer}`;
      // A fresh data folder: a failed attempt may have written another
      // peer URL into the one before.
      await removeTree(`${dir}/etcd`);
      await removeTree(`${dir}/etcd.log`);
      // A stop meanwhile (the host's signal) has already taken the
      // processes it kills: start none after it.
      if (this.#stopped) throw this.#stoppedMeanwhile();
      const etcd = new ComponentProcess({
        component: "etcd",
        command: binaries.etcd,
        args: [
          "--name=default",
          `--data-dir=${dir}/etcd`,
          `--listen-client-urls=${this.#etcdUrl}`,
          `--advertise-client-urls=${this.#etcdUrl}`,
          `--listen-peer-urls=${peerUrl}`,
          `--initial-advertise-peer-urls=${peerUrl}`,
          `--initial-cluster=default=${peerUrl}`,
          // Tests need no durability: no fsync, far quicker writes.
          "--unsafe-no-fsync=true",
          "--log-level=warn",
          ...(options.etcdArgs ?? []),
        ],
        env: childEnv(dir),
        logFile: `${dir}/etcd.log`,
        cleanupDir: dir,
      });
      this.#etcd = etcd;
      try {
        await this.#waitReady(etcd, deadline, () => this.#etcdHealthy());
        return;
      } catch (error) {
        await etcd.kill();
        if (attempt < PORT_ATTEMPTS && await portTaken(etcd)) continue;
        throw error;
      }
    }
  }

  async #startApiServer(deadline: number, firstStart: boolean): Promise<void> {
    const { dir, binaries } = this.#settings;
    for (let attempt = 1;; attempt++) {
      if (firstStart) {
        if (this.#apiServerPort) releasePort(this.#apiServerPort);
        this.#apiServerPort = await freePort(
          attempt === 1 ? this.#settings.options.ports?.apiServer : undefined,
        );
        this.#probeClient?.close();
        this.#probeClient = new FetchClient(
          { server: this.url, token: this.token(ADMIN), caData: this.caPem },
          { source: "control plane (readiness probe)" },
        );
      }
      await removeTree(`${dir}/kube-apiserver.log`);
      // Checked right before the spawn, with no await between: a stop
      // called meanwhile has already taken the processes it kills.
      if (this.#stopped) throw this.#stoppedMeanwhile();
      const apiServer = new ComponentProcess({
        component: "kube-apiserver",
        command: binaries.kubeApiServer,
        args: this.#apiServerArgs(),
        env: childEnv(dir),
        logFile: `${dir}/kube-apiserver.log`,
      });
      this.#apiServer = apiServer;
      try {
        await this.#waitReady(apiServer, deadline, () => this.#apiReady());
        await this.#waitReady(
          apiServer,
          deadline,
          () => this.#defaultNamespaceExists(),
        );
        // Ready as the stop came: the stop kills it, so it was no restart.
        if (this.#stopped) throw this.#stoppedMeanwhile();
        return;
      } catch (error) {
        await apiServer.kill();
        // The stop killed it: that is why it did not get ready.
        if (this.#stopped) throw this.#stoppedMeanwhile();
        // A restart keeps its port: clients hold the URL.
        if (
          firstStart && attempt < PORT_ATTEMPTS && await portTaken(apiServer)
        ) continue;
        throw error;
      }
    }
  }

  #apiServerArgs(): string[] {
    const { dir, options } = this.#settings;
    const pki = this.#pki!;
    const args = [
      `--etcd-servers=${this.#etcdUrl}`,
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      `--secure-port=${this.#apiServerPort}`,
      `--cert-dir=${dir}/apiserver-certs`,
      `--tls-cert-file=${pki.certFile}`,
      `--tls-private-key-file=${pki.keyFile}`,
      `--token-auth-file=${dir}/tokens.csv`,
      "--authorization-mode=RBAC",
      "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
      `--service-account-key-file=${pki.serviceAccountPublicKeyFile}`,
      `--service-account-signing-key-file=${pki.serviceAccountKeyFile}`,
      "--service-cluster-ip-range=10.0.0.0/24",
      "--allow-privileged=true",
      // Without a controller manager no token controller fills service
      // accounts: the admission plugin would refuse every Pod.
      "--disable-admission-plugins=ServiceAccount",
      // One API server, nothing to reconcile the kubernetes endpoints with.
      "--endpoint-reconciler-type=none",
      "--profiling=false",
      `--watch-cache=${options.watchCache ?? true}`,
    ];
    if (options.etcdCompactionIntervalMs !== undefined) {
      args.push(
        `--etcd-compaction-interval=${options.etcdCompactionIntervalMs}ms`,
      );
    }
    if (options.minRequestTimeoutSeconds !== undefined) {
      args.push(`--min-request-timeout=${options.minRequestTimeoutSeconds}`);
    }
    return [...args, ...(options.apiServerArgs ?? [])];
  }

  /** Polls `probe` until it answers true, the process exits or time is up. */
  async #waitReady(
    process: ComponentProcess,
    deadline: number,
    probe: () => Promise<{ ready: boolean; detail: string }>,
  ): Promise<void> {
    let detail = "it did not answer";
    for (;;) {
      // Stopping kills the process: no point in asking it again.
      if (this.#stopped) throw this.#stoppedMeanwhile();
      if (process.status) throw await exitedError(process);
      const answer = await probe();
      if (answer.ready) return;
      detail = answer.detail;
      if (process.status) throw await exitedError(process);
      if (Date.now() >= deadline) {
        throw new ControlPlaneError(
          process.component,
          `${process.component} was not ready within ${this.#settings.timeoutMs} ms (the startTimeoutMs option); ${detail}`,
          await process.tail(LOG_TAIL_LINES),
        );
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        new Promise((resolve) => timer = setTimeout(resolve, POLL_MS)),
        process.exited,
      ]);
      clearTimeout(timer);
    }
  }

  #etcdHealthy(): Promise<{ ready: boolean; detail: string }> {
    return probe(`${this.#etcdUrl}/health`, {}, (status, body) => ({
      ready: status === 200 && /"health":\s*"true"/.test(body),
      detail: `/health answered ${status}: ${body.slice(0, 300)}`,
    }));
  }

  #apiReady(): Promise<{ ready: boolean; detail: string }> {
    return this.#askApiServer("/readyz", (failure) =>
      // The checks that failed ("[-]etcd failed: …"), as the body lists them.
      `/readyz answered ${
        failure.match(/\[-\][^\\"]*/g)?.join("; ") ?? failure.slice(0, 300)
      }`);
  }

  /** The bootstrap controller creates `default` just after readiness. */
  #defaultNamespaceExists(): Promise<{ ready: boolean; detail: string }> {
    return this.#askApiServer(
      "/api/v1/namespaces/default",
      (failure) =>
        `the default namespace is not there yet (${failure.slice(0, 300)})`,
    );
  }

  /**
   * A GET as admin through the probe client (it trusts the plane's CA on
   * every runtime): ready when it answers 2xx, else the failure in words.
   */
  async #askApiServer(
    path: string,
    detail: (failure: string) => string,
  ): Promise<{ ready: boolean; detail: string }> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), PROBE_TIMEOUT_MS);
    try {
      await this.#probeClient!.performRequest({
        method: "GET",
        path,
        abortSignal: controller.signal,
      });
      return { ready: true, detail: "" };
    } catch (error) {
      return {
        ready: false,
        detail: detail(error instanceof Error ? error.message : String(error)),
      };
    } finally {
      clearTimeout(timer);
    }
  }

  async #writeKubeconfig(): Promise<void> {
    const { users } = this.#settings;
    const kubeconfig = {
      apiVersion: "v1",
      kind: "Config",
      clusters: [{
        name: "control-plane",
        cluster: {
          server: this.url,
          "certificate-authority-data": base64(this.caPem),
        },
      }],
      users: users.map((u) => ({ name: u.name, user: { token: u.token } })),
      contexts: users.map((u) => ({
        name: u.name,
        context: { cluster: "control-plane", user: u.name },
      })),
      "current-context": ADMIN,
    };
    await writeTextFile(
      this.kubeconfigPath,
      JSON.stringify(kubeconfig, null, 2),
      0o600,
    );
  }
}

async function resolveBinaries(
  options: ControlPlaneOptions,
): Promise<ControlPlaneBinaries> {
  const given = options.binaries ?? {};
  const { found, missing, searched } = await locateBinaries(
    { env: options.env },
    given,
  );
  if (missing.length > 0) {
    throw new ControlPlaneBinariesNotFoundError(missing, searched);
  }
  return { ...found, ...given } as ControlPlaneBinaries;
}

function makeUsers(extra: ControlPlaneUserSpec[]): ControlPlaneUser[] {
  const specs: ControlPlaneUserSpec[] = [
    { name: ADMIN, groups: ["system:masters"] },
    { name: RESTRICTED },
    ...extra,
  ];
  const seen = new Set<string>();
  return specs.map((spec) => {
    if (!/^[A-Za-z0-9][A-Za-z0-9._:@-]*$/.test(spec.name ?? "")) {
      throw new TypeError(
        `A control plane user name must be letters, digits and -._:@, got ${
          JSON.stringify(spec.name)
        }`,
      );
    }
    if (seen.has(spec.name)) {
      throw new TypeError(`The control plane user "${spec.name}" is twice`);
    }
    seen.add(spec.name);
    for (const group of spec.groups ?? []) {
      if (!/^[A-Za-z0-9][A-Za-z0-9._:@-]*$/.test(group)) {
        throw new TypeError(
          `A group of user "${spec.name}" must be letters, digits and -._:@, got ${
            JSON.stringify(group)
          }`,
        );
      }
    }
    return Object.freeze({
      name: spec.name,
      token: randomHex(24),
      groups: Object.freeze([...(spec.groups ?? [])]),
    });
  });
}

/** etcd and kube-apiserver need no more than this. */
function childEnv(dir: string): Record<string, string> {
  return { HOME: `${dir}/home`, PATH: "/usr/local/bin:/usr/bin:/bin" };
}

async function probe(
  url: string,
  init: RequestInit,
  judge: (status: number, body: string) => { ready: boolean; detail: string },
): Promise<{ ready: boolean; detail: string }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), PROBE_TIMEOUT_MS);
  try {
    const response = await fetch(url, { ...init, signal: controller.signal });
    return judge(response.status, await response.text());
  } catch (error) {
    return {
      ready: false,
      detail: `${url} did not answer (${
        error instanceof Error ? error.message : String(error)
      })`,
    };
  } finally {
    clearTimeout(timer);
  }
}

async function exitedError(process: ComponentProcess): Promise<Error> {
  const status = process.status!;
  const how = status.signal
    ? `was killed by ${status.signal}`
    : `exited with code ${status.code}`;
  return new ControlPlaneError(
    process.component,
    `${process.component} ${how} while starting`,
    await process.tail(LOG_TAIL_LINES),
  );
}

async function portTaken(process: ComponentProcess): Promise<boolean> {
  if (!process.status) return false;
  return (await process.tail(LOG_TAIL_LINES)).some((line) =>
    ADDRESS_IN_USE.test(line)
  );
}

function base64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) {
    binary += String.fromCharCode(byte);
  }
  return btoa(binary);
}
