// Command controller_runtime is a contender of the reconcile rows of
// bench:compare (bench/reconcile.ts): controller-runtime v0.25.3's
// controller (controller.NewTypedUnmanaged, its default priority queue,
// MaxConcurrentReconciles workers) with a no-op or slow reconcile.
//
//   - queue, dedup: the adds go into the controller's own queue through a
//     source.TypedFunc, the source controller-runtime hands that queue to;
//   - reconcileLatency: client-go v0.37.2's typed Pod informer on the bench
//     server, wrapped in a source.Informer whose UpdateFunc handler adds the
//     object's namespace/name (what handler.EnqueueRequestForObject does);
//   - queueHeap: the queue the controller builds by default,
//     priorityqueue.New, holding the keys.
//
// Usage: controller_runtime '<task JSON>'; prints one `RESULT {json}` line
// (bench/_reconcile_task.ts has the task and outcome).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// sentAt is the annotation carrying the server's send time (bench/_protocol.ts).
const sentAt = "bench.haptic.dev/sent-at"

type task struct {
	Workload    string `json:"workload"`
	Server      string `json:"server"`
	Events      int    `json:"events"`
	Keys        int    `json:"keys"`
	Adds        int    `json:"adds"`
	Workers     int    `json:"workers"`
	Bursts      int    `json:"bursts"`
	BurstGapMs  int    `json:"burstGapMs"`
	ReconcileMs int    `json:"reconcileMs"`
	TimeoutMs   int    `json:"timeoutMs"`
}

type outcome struct {
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

func ptr[T any](v T) *T { return &v }

// now is wall-clock milliseconds, comparable with the bench server's clock
// up to the offset that clockOffset measures.
func now() float64 { return float64(time.Now().UnixNano()) / 1e6 }

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "FAILED "+format+"\n", args...)
	os.Exit(1)
}

func report(o outcome) {
	b, err := json.Marshal(o)
	if err != nil {
		fail("cannot encode the outcome: %v", err)
	}
	fmt.Printf("RESULT %s\n", b)
	os.Exit(0)
}

// settledHeap is the live heap after full collections, and the RSS then.
func settledHeap() (heap uint64, rss uint64) {
	var m runtime.MemStats
	for i := 0; i < 3; i++ {
		runtime.GC()
	}
	runtime.ReadMemStats(&m)
	return m.HeapAlloc, residentBytes()
}

// residentBytes is VmRSS from /proc/self/status (0 where there is none).
func residentBytes() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			fields := strings.Fields(line)
			kb, _ := strconv.ParseUint(fields[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// clockOffset is the server clock minus ours, from the round trip with the
// smallest delay (as bench/_protocol.ts measures it).
func clockOffset(server string) float64 {
	best := 1e18
	offset := 0.0
	for i := 0; i < 15; i++ {
		t0 := now()
		res, err := http.Get(server + "/_bench/now")
		if err != nil {
			fail("clock offset: %v", err)
		}
		var body struct {
			Now float64 `json:"now"`
		}
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if err != nil {
			fail("clock offset: %v", err)
		}
		t1 := now()
		if t1-t0 < best {
			best = t1 - t0
			offset = body.Now - (t0+t1)/2
		}
	}
	return offset
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

func (c *coverage) added(i int) {
	if !c.dirty[i].Swap(true) {
		c.dirtyCount.Add(1)
	}
}

func (c *coverage) started(i int) {
	c.inflight.Add(1)
	c.reconciles.Add(1)
	if c.dirty[i].Swap(false) {
		c.dirtyCount.Add(-1)
	}
}

func (c *coverage) finished() {
	c.inflight.Add(-1)
	c.check()
}

func (c *coverage) produced() {
	c.producerDone.Store(true)
	c.check()
}

func (c *coverage) check() {
	if c.producerDone.Load() && c.dirtyCount.Load() == 0 && c.inflight.Load() == 0 {
		c.once.Do(func() { c.done <- now() })
	}
}

func requests(keys int) ([]reconcile.Request, map[types.NamespacedName]int) {
	reqs := make([]reconcile.Request, keys)
	index := make(map[types.NamespacedName]int, keys)
	for i := range reqs {
		name := types.NamespacedName{Namespace: fmt.Sprintf("bench-%02d", i%16), Name: fmt.Sprintf("pod-%d", i)}
		reqs[i] = reconcile.Request{NamespacedName: name}
		index[name] = i
	}
	return reqs, index
}

// start builds the controller around reconcile and src, and starts it.
func start(ctx context.Context, workers int, src source.TypedSource[reconcile.Request], rec func(context.Context, reconcile.Request) (reconcile.Result, error)) {
	c, err := controller.NewTypedUnmanaged[reconcile.Request]("bench", controller.TypedOptions[reconcile.Request]{
		MaxConcurrentReconciles: workers,
		Reconciler:              reconcile.TypedFunc[reconcile.Request](rec),
		Logger:                  logr.Discard(),
	})
	if err != nil {
		fail("controller: %v", err)
	}
	if err := c.Watch(src); err != nil {
		fail("watch: %v", err)
	}
	go func() {
		if err := c.Start(ctx); err != nil && ctx.Err() == nil {
			fail("controller: %v", err)
		}
	}()
}

func main() {
	if len(os.Args) != 2 {
		fail("usage: controller_runtime '<task JSON>'")
	}
	var t task
	if err := json.Unmarshal([]byte(os.Args[1]), &t); err != nil || t.Workload == "" {
		fail("expected a JSON task as the argument")
	}
	ctrllog.SetLogger(logr.Discard())
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(t.TimeoutMs)*time.Millisecond)
	defer cancel()
	go func() {
		<-ctx.Done()
		if ctx.Err() == context.DeadlineExceeded {
			fail("timed out after %d ms (%s)", t.TimeoutMs, t.Workload)
		}
	}()
	workers := max(t.Workers, 1)
	o := outcome{Notes: []string{"controller-runtime v0.25.3 controller.NewTypedUnmanaged (default priority queue), client-go v0.37.2"}}

	switch t.Workload {
	case "queue", "dedup":
		reqs, index := requests(t.Keys)
		cov := newCoverage(t.Keys)
		slow := time.Duration(t.ReconcileMs) * time.Millisecond
		started := make(chan float64, 1)
		var producerMs float64
		produced := make(chan struct{})
		src := source.TypedFunc[reconcile.Request](func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
			go func() {
				t0 := now()
				started <- t0
				if t.Workload == "queue" {
					for i := 0; i < t.Adds; i++ {
						k := i % t.Keys
						cov.added(k)
						q.Add(reqs[k])
					}
				} else {
					for r := 0; r <= t.Bursts; r++ {
						if r > 0 {
							time.Sleep(time.Duration(t.BurstGapMs) * time.Millisecond)
						}
						for k := 0; k < t.Keys; k++ {
							cov.added(k)
							q.Add(reqs[k])
						}
					}
				}
				producerMs = now() - t0
				close(produced)
				cov.produced()
			}()
			return nil
		})
		start(ctx, workers, src, func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
			cov.started(index[req.NamespacedName])
			if slow > 0 {
				time.Sleep(slow)
			}
			cov.finished()
			return reconcile.Result{}, nil
		})
		t0 := <-started
		at := <-cov.done
		<-produced
		o.ElapsedMs = ptr(at - t0)
		o.ProducerMs = ptr(producerMs)
		o.Reconciles = ptr(cov.reconciles.Load())
		o.Keys = ptr(t.Keys)
		o.Adds = ptr(t.Adds)
		o.Notes = append(o.Notes, fmt.Sprintf("%d concurrent reconciles; adds from one goroutine into the controller's queue via source.TypedFunc", workers))
		report(o)
	case "queueHeap":
		reqs, _ := requests(t.Keys)
		q := priorityqueue.New[reconcile.Request]("bench")
		heapBefore, rssBefore := settledHeap()
		for _, r := range reqs {
			q.Add(r)
		}
		// Its adds land through a goroutine of the queue's: wait for them.
		for q.Len() < t.Keys {
			time.Sleep(time.Millisecond)
		}
		heapAfter, rssAfter := settledHeap()
		o.HeapBefore, o.HeapAfter = ptr(heapBefore), ptr(heapAfter)
		o.RssBefore, o.RssAfter = ptr(rssBefore), ptr(rssAfter)
		o.HeapPerKey = ptr((float64(heapAfter) - float64(heapBefore)) / float64(t.Keys))
		o.Keys = ptr(t.Keys)
		o.Notes = append(o.Notes, "priorityqueue.New, the controller's default queue")
		report(o)
	case "reconcileLatency":
		offset := clockOffset(t.Server)
		os.Setenv("KUBE_FEATURE_WatchListClient", "false")
		cfg := &rest.Config{Host: t.Server, QPS: -1}
		cfg.ContentConfig = rest.ContentConfig{ContentType: "application/json", AcceptContentTypes: "application/json"}
		clientset, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			fail("clientset: %v", err)
		}
		informer := informers.NewSharedInformerFactory(clientset, 0).Core().V1().Pods().Informer()
		if err := informer.SetTransform(func(obj any) (any, error) {
			if m, ok := obj.(metav1.Object); ok {
				m.SetManagedFields(nil)
			}
			return obj, nil
		}); err != nil {
			fail("transform: %v", err)
		}
		var mu sync.Mutex
		pending := map[types.NamespacedName][]float64{}
		latencies := make([]float64, 0, t.Events)
		done := make(chan struct{})
		var reconciles atomic.Int64
		var full atomic.Bool
		src := &source.Informer{
			Informer: informer,
			Handler: handler.Funcs{
				UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
					sent, err := strconv.ParseFloat(e.ObjectNew.GetAnnotations()[sentAt], 64)
					if err != nil {
						return
					}
					name := client.ObjectKeyFromObject(e.ObjectNew)
					mu.Lock()
					pending[name] = append(pending[name], sent)
					mu.Unlock()
					q.Add(reconcile.Request{NamespacedName: name})
				},
			},
		}
		start(ctx, workers, src, func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
			at := now()
			reconciles.Add(1)
			mu.Lock()
			for _, sent := range pending[req.NamespacedName] {
				latencies = append(latencies, at-(sent-offset))
			}
			delete(pending, req.NamespacedName)
			n := len(latencies)
			mu.Unlock()
			if n == t.Events && full.CompareAndSwap(false, true) {
				close(done)
			}
			return reconcile.Result{}, nil
		})
		go informer.RunWithContext(ctx)
		<-done
		mu.Lock()
		o.Latencies = latencies
		mu.Unlock()
		o.ClockOffset = ptr(offset)
		o.Reconciles = ptr(reconciles.Load())
		o.Notes = append(o.Notes, fmt.Sprintf("typed Pod informer in a source.Informer, UpdateFunc adds namespace/name; %d concurrent reconciles", workers))
		report(o)
	}
	fail("workload %q is not measured by this contender", t.Workload)
}
