//! The reconcile rows of bench:compare (bench/reconcile.ts): kube-runtime's
//! `Controller` on `Pod` with `concurrency` reconciles at a time, a no-op
//! (or, for `dedup`, a slow) reconcile.
//!
//! - `queue`, `dedup`: `Controller::for_stream` over a store filled with the
//!   keys' pods and a watch stream that never yields, driven by
//!   `reconcile_on`, a trigger stream of `ObjectRef`s (the adds);
//! - `reconcileLatency`: `watcher` on the bench server, `reflect` into the
//!   store, `applied_objects`, the changed pods (the initial list's are
//!   left out, as the other contenders queue only updates) into
//!   `Controller::for_stream`;
//! - `queueHeap`: the keys triggered into a controller whose reconciles
//!   never end, so they wait in its scheduler; the bytes live then.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

use futures::{StreamExt, future, stream};
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ObjectMeta};
use kube::runtime::controller::{Action, Config as ControllerConfig, Controller};
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::watcher::{self, Event};
use kube::runtime::WatchStreamExt;
use kube::ResourceExt;
use serde::{Deserialize, Serialize};

use crate::{LIVE, SENT_AT, clock_offset, fail, now, resident_bytes};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReconcileTask {
    workload: String,
    server: String,
    events: Option<usize>,
    keys: Option<usize>,
    adds: Option<usize>,
    workers: Option<u16>,
    bursts: Option<usize>,
    burst_gap_ms: Option<u64>,
    reconcile_ms: Option<u64>,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct ReconcileOutcome {
    #[serde(skip_serializing_if = "Option::is_none")]
    elapsed_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    producer_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    adds: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reconciles: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    keys: Option<usize>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    latencies: Vec<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    clock_offset: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    heap_before: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    heap_after: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rss_before: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rss_after: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    heap_per_key: Option<f64>,
    notes: Vec<String>,
}

fn report(outcome: &ReconcileOutcome) -> ! {
    println!("RESULT {}", serde_json::to_string(outcome).unwrap());
    std::process::exit(0);
}

/// Whether the workload is one of this file's.
pub fn is_reconcile_workload(workload: &str) -> bool {
    matches!(workload, "queue" | "dedup" | "queueHeap" | "reconcileLatency")
}

#[derive(Debug)]
struct NoError;
impl std::fmt::Display for NoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("no error")
    }
}
impl std::error::Error for NoError {}

fn error_policy(_: Arc<Pod>, _: &NoError, _: Arc<()>) -> Action {
    Action::await_change()
}

/// Knows when every add has been covered by a reconcile that started after
/// it and has finished: the same stopping point in every contender
/// (bench/_reconcile_task.ts says why).
struct Coverage {
    dirty: Vec<AtomicBool>,
    dirty_count: AtomicI64,
    inflight: AtomicI64,
    reconciles: AtomicI64,
    producer_done: AtomicBool,
    reported: AtomicBool,
    started_at: AtomicU64,
    producer_ms: AtomicU64,
    adds: usize,
    notes: Vec<String>,
}

impl Coverage {
    fn added(&self, i: usize) {
        if !self.dirty[i].swap(true, SeqCst) {
            self.dirty_count.fetch_add(1, SeqCst);
        }
    }
    fn started(&self, i: usize) {
        self.inflight.fetch_add(1, SeqCst);
        self.reconciles.fetch_add(1, SeqCst);
        if self.dirty[i].swap(false, SeqCst) {
            self.dirty_count.fetch_sub(1, SeqCst);
        }
    }
    fn finished(&self) {
        self.inflight.fetch_sub(1, SeqCst);
        self.check();
    }
    fn produced(&self) {
        let t0 = f64::from_bits(self.started_at.load(SeqCst));
        self.producer_ms.store((now() - t0).to_bits(), SeqCst);
        self.producer_done.store(true, SeqCst);
        self.check();
    }
    fn check(&self) {
        if self.producer_done.load(SeqCst)
            && self.dirty_count.load(SeqCst) == 0
            && self.inflight.load(SeqCst) == 0
            && !self.reported.swap(true, SeqCst)
        {
            let at = now();
            let t0 = f64::from_bits(self.started_at.load(SeqCst));
            report(&ReconcileOutcome {
                elapsed_ms: Some(at - t0),
                producer_ms: Some(f64::from_bits(self.producer_ms.load(SeqCst))),
                adds: Some(self.adds),
                reconciles: Some(self.reconciles.load(SeqCst)),
                keys: Some(self.dirty.len()),
                notes: self.notes.clone(),
                ..Default::default()
            });
        }
    }
}

fn bench_pod(i: usize) -> Pod {
    Pod {
        metadata: ObjectMeta {
            name: Some(format!("pod-{i}")),
            namespace: Some(format!("bench-{:02}", i % 16)),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// A store holding the keys' pods (the controller reconciles only what its
/// store has), ready.
fn filled_store(keys: usize) -> Store<Pod> {
    let (reader, mut writer) = reflector::store::<Pod>();
    writer.apply_watcher_event(&Event::Init);
    for i in 0..keys {
        writer.apply_watcher_event(&Event::InitApply(bench_pod(i)));
    }
    writer.apply_watcher_event(&Event::InitDone);
    reader
}

fn refs(keys: usize) -> (Vec<ObjectRef<Pod>>, Arc<HashMap<String, usize>>) {
    let refs = (0..keys)
        .map(|i| ObjectRef::new(&format!("pod-{i}")).within(&format!("bench-{:02}", i % 16)))
        .collect();
    let index = (0..keys).map(|i| (format!("pod-{i}"), i)).collect();
    (refs, Arc::new(index))
}

fn controller_config(workers: u16) -> ControllerConfig {
    ControllerConfig::default().concurrency(workers)
}

/// Runs the reconcile workload in `raw`; never returns.
pub async fn run(raw: &str) -> ! {
    let task: ReconcileTask =
        serde_json::from_str(raw).unwrap_or_else(|e| fail(&format!("expected a JSON task: {e}")));
    let workers = task.workers.unwrap_or(1).max(1);
    let keys = task.keys.unwrap_or(0);
    let note = format!(
        "kube 5.0.0 runtime::Controller on Pod, Config::concurrency({workers}), tokio multi-thread"
    );
    match task.workload.as_str() {
        "queue" | "dedup" => {
            let reader = filled_store(keys);
            let (refs, index) = refs(keys);
            let dedup = task.workload == "dedup";
            let adds = task.adds.unwrap_or(0);
            let cov = Arc::new(Coverage {
                dirty: (0..keys).map(|_| AtomicBool::new(false)).collect(),
                dirty_count: AtomicI64::new(0),
                inflight: AtomicI64::new(0),
                reconciles: AtomicI64::new(0),
                producer_done: AtomicBool::new(false),
                reported: AtomicBool::new(false),
                started_at: AtomicU64::new(0),
                producer_ms: AtomicU64::new(0),
                adds,
                notes: vec![
                    note,
                    "adds: a reconcile_on trigger stream of ObjectRefs".into(),
                ],
            });
            let bursts = task.bursts.unwrap_or(0);
            let gap = Duration::from_millis(task.burst_gap_ms.unwrap_or(0));
            let slow = Duration::from_millis(task.reconcile_ms.unwrap_or(0));
            let c = cov.clone();
            let r = refs.clone();
            // (round, key): every key once per round; `queue` is one round
            // of `adds` keys taken in turn.
            let triggers = stream::unfold((0usize, 0usize), move |(round, k)| {
                let c = c.clone();
                let r = r.clone();
                async move {
                    if round == 0 && k == 0 {
                        c.started_at.store(now().to_bits(), SeqCst);
                    }
                    let (round, k) = if dedup && k == r.len() {
                        if round + 1 > bursts {
                            return None;
                        }
                        tokio::time::sleep(gap).await;
                        (round + 1, 0)
                    } else {
                        (round, k)
                    };
                    if !dedup && k == adds {
                        return None;
                    }
                    let key = k % r.len();
                    c.added(key);
                    Some((r[key].clone(), (round, k + 1)))
                }
            });
            let c = cov.clone();
            let ends = stream::poll_fn(move |_| {
                c.produced();
                Poll::Ready(None::<ObjectRef<Pod>>)
            });
            let c = cov.clone();
            Controller::for_stream(stream::pending(), reader)
                .with_config(controller_config(workers))
                .reconcile_on(triggers.chain(ends))
                .run(
                    move |pod: Arc<Pod>, _ctx: Arc<()>| {
                        let c = c.clone();
                        let index = index.clone();
                        async move {
                            c.started(index[&pod.name_any()]);
                            if !slow.is_zero() {
                                tokio::time::sleep(slow).await;
                            }
                            c.finished();
                            Ok::<_, NoError>(Action::await_change())
                        }
                    },
                    error_policy,
                    Arc::new(()),
                )
                .for_each(|_| future::ready(()))
                .await;
            fail("the controller stopped before every add was covered")
        }
        "queueHeap" => {
            let reader = filled_store(keys);
            let (refs, _) = refs(keys);
            let fed = Arc::new(AtomicUsize::new(0));
            let (heap_before, rss_before) = (LIVE.load(SeqCst), resident_bytes());
            let f = fed.clone();
            let triggers = stream::iter(refs).inspect(move |_| {
                f.fetch_add(1, SeqCst);
            });
            tokio::spawn(
                Controller::for_stream(stream::pending(), reader)
                    .with_config(controller_config(workers))
                    .reconcile_on(triggers)
                    .run(
                        // Never ends: the keys stay in the scheduler.
                        |_: Arc<Pod>, _: Arc<()>| future::pending::<Result<Action, NoError>>(),
                        error_policy,
                        Arc::new(()),
                    )
                    .for_each(|_| future::ready(())),
            );
            while fed.load(SeqCst) < keys {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            // Let the scheduler take in the last of them.
            tokio::time::sleep(Duration::from_millis(200)).await;
            let (heap_after, rss_after) = (LIVE.load(SeqCst), resident_bytes());
            report(&ReconcileOutcome {
                keys: Some(keys),
                heap_before: Some(heap_before),
                heap_after: Some(heap_after),
                rss_before: Some(rss_before),
                rss_after: Some(rss_after),
                heap_per_key: Some((heap_after as f64 - heap_before as f64) / keys as f64),
                notes: vec![
                    note,
                    format!("{keys} ObjectRefs triggered (each owns its name and namespace); {workers} reconciles held open, the rest wait in the scheduler"),
                ],
                ..Default::default()
            })
        }
        "reconcileLatency" => {
            let events = task.events.unwrap_or(0);
            let offset = clock_offset(&task.server);
            let config = kube::Config::new(task.server.parse().unwrap_or_else(|_| fail("bad server URL")));
            let client = kube::Client::try_from(config).unwrap_or_else(|e| fail(&e.to_string()));
            let api = Api::<Pod>::all(client);
            let (reader, writer) = reflector::store::<Pod>();
            let pending: Arc<Mutex<HashMap<String, Vec<f64>>>> = Arc::default();
            let latencies: Arc<Mutex<Vec<f64>>> = Arc::new(Mutex::new(Vec::with_capacity(events)));
            let reconciles = Arc::new(AtomicI64::new(0));
            let p = pending.clone();
            let changed = watcher::watcher(api, watcher::Config::default())
                .default_backoff()
                .modify(|pod| pod.managed_fields_mut().clear())
                .reflect(writer)
                .applied_objects()
                .filter(move |r| {
                    let keep = match r {
                        Ok(pod) => match pod.annotations().get(SENT_AT).and_then(|s| s.parse::<f64>().ok()) {
                            Some(sent) => {
                                let key = format!("{}/{}", pod.namespace().unwrap_or_default(), pod.name_any());
                                p.lock().unwrap().entry(key).or_default().push(sent);
                                true
                            }
                            None => false,
                        },
                        Err(_) => true,
                    };
                    future::ready(keep)
                });
            let (l, p, n) = (latencies.clone(), pending.clone(), reconciles.clone());
            Controller::for_stream(changed, reader)
                .with_config(controller_config(workers))
                .run(
                    move |pod: Arc<Pod>, _ctx: Arc<()>| {
                        let at = now();
                        n.fetch_add(1, SeqCst);
                        let key = format!("{}/{}", pod.namespace().unwrap_or_default(), pod.name_any());
                        let sent = p.lock().unwrap().remove(&key).unwrap_or_default();
                        let mut l = l.lock().unwrap();
                        l.extend(sent.iter().map(|s| at - (s - offset)));
                        if l.len() == events {
                            report(&ReconcileOutcome {
                                latencies: l.clone(),
                                clock_offset: Some(offset),
                                reconciles: Some(n.load(SeqCst)),
                                notes: vec![
                                    note.clone(),
                                    "watcher + reflect + applied_objects (updates only) into Controller::for_stream".into(),
                                ],
                                ..Default::default()
                            });
                        }
                        future::ready(Ok::<_, NoError>(Action::await_change()))
                    },
                    error_policy,
                    Arc::new(()),
                )
                .for_each(|_| future::ready(()))
                .await;
            fail("the controller stopped before every event was reconciled")
        }
        other => fail(&format!("workload {other} is not measured by this contender")),
    }
}
