// The reconcile rows of bench:compare (bench/reconcile.ts): client-go's
// typed rate-limiting work queue (k8s.io/client-go/util/workqueue) with
// worker goroutines calling a no-op or slow reconcile, and, for the latency
// row, the typed Pod informer feeding it (informer + workqueue, the way a
// client-go controller is written).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// reconcileTask is the part of the task the reconcile workloads read.
type reconcileTask struct {
	Workload    string `json:"workload"`
	Server      string `json:"server"`
	Objects     int    `json:"objects"`
	Events      int    `json:"events"`
	Keys        int    `json:"keys"`
	Adds        int    `json:"adds"`
	Workers     int    `json:"workers"`
	Bursts      int    `json:"bursts"`
	BurstGapMs  int    `json:"burstGapMs"`
	ReconcileMs int    `json:"reconcileMs"`
}

type reconcileOutcome struct {
	ElapsedMs   *float64  `json:"elapsedMs,omitempty"`
	ProducerMs  *float64  `json:"producerMs,omitempty"`
	Adds        *int      `json:"adds,omitempty"`
	Reconciles  *int64    `json:"reconciles,omitempty"`
	Keys        *int      `json:"keys,omitempty"`
	Latencies   []float64 `json:"latencies,omitempty"`
	ClockOffset *float64  `json:"clockOffset,omitempty"`
	HeapBefore  *uint64   `json:"heapBefore,omitempty"`
	HeapAfter   *uint64   `json:"heapAfter,omitempty"`
	RssBefore   *uint64   `json:"rssBefore,omitempty"`
	RssAfter    *uint64   `json:"rssAfter,omitempty"`
	HeapPerKey  *float64  `json:"heapPerKey,omitempty"`
	Notes       []string  `json:"notes,omitempty"`
}

func isReconcileWorkload(w string) bool {
	return w == "queue" || w == "dedup" || w == "queueHeap" || w == "reconcileLatency"
}

func reportReconcile(o reconcileOutcome) {
	b, err := json.Marshal(o)
	if err != nil {
		fail("cannot encode the outcome: %v", err)
	}
	fmt.Printf("RESULT %s\n", b)
	pprof.StopCPUProfile()
	os.Exit(0)
}

// coverage knows when every add has been covered by a reconcile that
// started after it and has finished: the same stopping point in every
// contender (bench/_reconcile_task.ts says why).
type coverage struct {
	dirty        []atomic.Bool
	dirtyCount   atomic.Int64
	inflight     atomic.Int64
	reconciles   atomic.Int64
	producerDone atomic.Bool
	once         sync.Once
	done         chan float64
}

func newCoverage(keys int) *coverage {
	return &coverage{dirty: make([]atomic.Bool, keys), done: make(chan float64, 1)}
}

// added is called before each add of key i.
func (c *coverage) added(i int) {
	if !c.dirty[i].Swap(true) {
		c.dirtyCount.Add(1)
	}
}

// started is called as the reconcile of key i begins.
func (c *coverage) started(i int) {
	c.inflight.Add(1)
	c.reconciles.Add(1)
	if c.dirty[i].Swap(false) {
		c.dirtyCount.Add(-1)
	}
}

// finished is called as a reconcile ends.
func (c *coverage) finished() {
	c.inflight.Add(-1)
	c.check()
}

// produced is called once every add has been made.
func (c *coverage) produced() {
	c.producerDone.Store(true)
	c.check()
}

func (c *coverage) check() {
	if c.producerDone.Load() && c.dirtyCount.Load() == 0 && c.inflight.Load() == 0 {
		c.once.Do(func() { c.done <- now() })
	}
}

func benchKey(i int) string { return fmt.Sprintf("bench-%02d/pod-%d", i%16, i) }

func keyIndex(keys int) ([]string, map[string]int) {
	names := make([]string, keys)
	index := make(map[string]int, keys)
	for i := range names {
		names[i] = benchKey(i)
		index[names[i]] = i
	}
	return names, index
}

func newQueue() workqueue.TypedRateLimitingInterface[string] {
	return workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "bench"},
	)
}

// work runs a worker: take a key, reconcile it, Forget and Done.
func work(q workqueue.TypedRateLimitingInterface[string], reconcile func(string)) {
	for {
		key, shutdown := q.Get()
		if shutdown {
			return
		}
		reconcile(key)
		q.Forget(key)
		q.Done(key)
	}
}

func reconcileMain(raw string, ctx context.Context, newPodInformer func() cache.SharedIndexInformer) {
	var t reconcileTask
	if err := json.Unmarshal([]byte(raw), &t); err != nil {
		fail("task: %v", err)
	}
	workers := max(t.Workers, 1)
	o := reconcileOutcome{Notes: []string{"client-go v0.37.2 util/workqueue: NewTypedRateLimitingQueueWithConfig (DefaultTypedControllerRateLimiter)"}}
	switch t.Workload {
	case "queue", "dedup":
		names, index := keyIndex(t.Keys)
		cov := newCoverage(t.Keys)
		q := newQueue()
		slow := time.Duration(t.ReconcileMs) * time.Millisecond
		for w := 0; w < workers; w++ {
			go work(q, func(key string) {
				cov.started(index[key])
				if slow > 0 {
					time.Sleep(slow)
				}
				cov.finished()
			})
		}
		t0 := now()
		var producerMs float64
		if t.Workload == "queue" {
			for i := 0; i < t.Adds; i++ {
				k := i % t.Keys
				cov.added(k)
				q.Add(names[k])
			}
			producerMs = now() - t0
		} else {
			// A burst: every key once per round, rounds burstGapMs apart.
			for r := 0; r <= t.Bursts; r++ {
				if r > 0 {
					time.Sleep(time.Duration(t.BurstGapMs) * time.Millisecond)
				}
				for k := 0; k < t.Keys; k++ {
					cov.added(k)
					q.Add(names[k])
				}
			}
			producerMs = now() - t0
		}
		cov.produced()
		at := <-cov.done
		o.ElapsedMs = ptr(at - t0)
		o.ProducerMs = ptr(producerMs)
		o.Reconciles = ptr(cov.reconciles.Load())
		o.Keys = ptr(t.Keys)
		o.Adds = ptr(t.Adds)
		o.Notes = append(o.Notes, fmt.Sprintf("%d worker goroutines, one producer goroutine", workers))
		reportReconcile(o)
	case "queueHeap":
		names, _ := keyIndex(t.Keys)
		q := newQueue()
		heapBefore, rssBefore := settledHeap()
		for _, k := range names {
			q.Add(k)
		}
		heapAfter, rssAfter := settledHeap()
		if q.Len() != t.Keys {
			fail("queue holds %d of %d keys", q.Len(), t.Keys)
		}
		o.HeapBefore, o.HeapAfter = ptr(heapBefore), ptr(heapAfter)
		o.RssBefore, o.RssAfter = ptr(rssBefore), ptr(rssAfter)
		o.HeapPerKey = ptr((float64(heapAfter) - float64(heapBefore)) / float64(t.Keys))
		o.Keys = ptr(t.Keys)
		reportReconcile(o)
	case "reconcileLatency":
		offset := clockOffset(t.Server)
		informer := newPodInformer()
		q := newQueue()
		var mu sync.Mutex
		pending := map[string][]float64{}
		latencies := make([]float64, 0, t.Events)
		done := make(chan struct{})
		var reconciles atomic.Int64
		var synced atomic.Bool
		_, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
			UpdateFunc: func(_, obj any) {
				m, err := metaAccessor(obj)
				if err != nil {
					fail("%v", err)
				}
				sent, err := strconv.ParseFloat(m.GetAnnotations()[sentAt], 64)
				if err != nil {
					return
				}
				key := m.GetNamespace() + "/" + m.GetName()
				mu.Lock()
				pending[key] = append(pending[key], sent)
				mu.Unlock()
				q.Add(key)
			},
		})
		if err != nil {
			fail("handler: %v", err)
		}
		for w := 0; w < workers; w++ {
			go work(q, func(key string) {
				at := now()
				reconciles.Add(1)
				mu.Lock()
				for _, sent := range pending[key] {
					latencies = append(latencies, at-(sent-offset))
				}
				delete(pending, key)
				full := len(latencies) == t.Events
				mu.Unlock()
				if full && synced.CompareAndSwap(false, true) {
					close(done)
				}
			})
		}
		go informer.RunWithContext(ctx)
		<-done
		mu.Lock()
		o.Latencies = latencies
		mu.Unlock()
		o.ClockOffset = ptr(offset)
		o.Reconciles = ptr(reconciles.Load())
		o.Notes = append(o.Notes, fmt.Sprintf("typed Pod SharedIndexInformer, UpdateFunc adds namespace/name; %d worker goroutines", workers))
		reportReconcile(o)
	}
	fail("workload %q is not measured by this contender", t.Workload)
}
