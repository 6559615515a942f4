// The ledger, in Go: a small invoicing API on net/http, PostgreSQL through
// pgx's pool (pgxpool) and Redis through redigo, as a team would ship it.
// Built offline against Debian's packaged sources (build.sh).
//
//	ledger-go --port P --db postgres://ledger@127.0.0.1:5432/postgres --redis 127.0.0.1:6379
//
// Routes (examples/ledger/README.md has the contract both implementations keep):
//
//	POST /invoices                 create: one transaction (customer row
//	                               locked, invoice, its lines, the customer's
//	                               totals); 201 with the invoice's totals
//	GET  /invoices/{id}            get: cache-aside through Redis (60 s)
//	GET  /customers/{id}/invoices  list: the customer's latest 10 invoices
//	POST /quote                    quote: price lines for a customer (tier
//	                               and region cache-aside through Redis)
//	GET  /healthz, GET /runtime-stats
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/jackc/pgx/v4"
	"github.com/jackc/pgx/v4/pgxpool"
)

const (
	poolSize   = 8  // PostgreSQL connections, opened at start (pools_warm)
	redisSize  = 8  // Redis connections, likewise
	invoiceTTL = 60 // seconds an invoice stays cached
	custTTL    = 300
	listLimit  = 10
	maxLines   = 20
)

var tierPct = [4]int64{0, 2, 5, 8}

type product struct {
	unitCents int64
	taxClass  int
}

type server struct {
	db       *pgxpool.Pool
	rds      *redis.Pool
	prefix   string // cache key prefix: one implementation's keys are its own
	products map[string]product
	taxBP    map[string][3]int64 // region -> rate by tax class, basis points

	calls               map[string]*int64
	requests            int64
	cacheHit, cacheMiss int64
}

type line struct {
	LineNo        int    `json:"line_no"`
	SKU           string `json:"sku"`
	Qty           int64  `json:"qty"`
	UnitCents     int64  `json:"unit_cents"`
	AmountCents   int64  `json:"amount_cents"`
	DiscountCents int64  `json:"discount_cents"`
	TaxCents      int64  `json:"tax_cents"`
}

type priced struct {
	CustomerID    int64  `json:"customer_id"`
	Tier          int    `json:"tier"`
	Region        string `json:"region"`
	Lines         []line `json:"lines"`
	SubtotalCents int64  `json:"subtotal_cents"`
	DiscountCents int64  `json:"discount_cents"`
	TaxCents      int64  `json:"tax_cents"`
	TotalCents    int64  `json:"total_cents"`
}

type invoice struct {
	ID            int64  `json:"id"`
	CustomerID    int64  `json:"customer_id"`
	Status        string `json:"status"`
	Currency      string `json:"currency"`
	SubtotalCents int64  `json:"subtotal_cents"`
	DiscountCents int64  `json:"discount_cents"`
	TaxCents      int64  `json:"tax_cents"`
	TotalCents    int64  `json:"total_cents"`
	CreatedAt     string `json:"created_at"`
	Lines         []line `json:"lines"`
}

type summary struct {
	ID         int64  `json:"id"`
	Status     string `json:"status"`
	TotalCents int64  `json:"total_cents"`
	CreatedAt  string `json:"created_at"`
}

type order struct {
	CustomerID int64 `json:"customer_id"`
	Lines      []struct {
		SKU string `json:"sku"`
		Qty int64  `json:"qty"`
	} `json:"lines"`
}

var errBadRequest = errors.New("bad request")
var errNotFound = errors.New("not found")

const createdAt = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`

// price applies the pricing rules to an order for a customer of tier and
// region: per line amount, tier discount and regional tax by class, in
// integer cents, rounding half up.
func (s *server) price(o *order, tier int, region string) (*priced, error) {
	if len(o.Lines) == 0 || len(o.Lines) > maxLines || tier < 0 || tier > 3 {
		return nil, errBadRequest
	}
	rates, ok := s.taxBP[region]
	if !ok {
		return nil, errBadRequest
	}
	p := &priced{CustomerID: o.CustomerID, Tier: tier, Region: region, Lines: make([]line, 0, len(o.Lines))}
	for i, l := range o.Lines {
		pr, ok := s.products[l.SKU]
		if !ok || l.Qty < 1 || l.Qty > 1000 {
			return nil, errBadRequest
		}
		amount := l.Qty * pr.unitCents
		disc := (amount*tierPct[tier] + 50) / 100
		tax := ((amount-disc)*rates[pr.taxClass] + 5000) / 10000
		p.Lines = append(p.Lines, line{i + 1, l.SKU, l.Qty, pr.unitCents, amount, disc, tax})
		p.SubtotalCents += amount
		p.DiscountCents += disc
		p.TaxCents += tax
	}
	p.TotalCents = p.SubtotalCents - p.DiscountCents + p.TaxCents
	return p, nil
}

func (s *server) count(name string) {
	atomic.AddInt64(s.calls[name], 1)
}

func reply(w http.ResponseWriter, status int, v interface{}) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = 500, []byte(`{"error":"encoding"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

func fail(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, errBadRequest):
		reply(w, 400, map[string]string{"error": "bad request"})
	case errors.Is(err, errNotFound):
		reply(w, 404, map[string]string{"error": "not found"})
	default:
		log.Printf("ledger-go: %v", err)
		reply(w, 500, map[string]string{"error": "internal"})
	}
}

func readOrder(r *http.Request) (*order, error) {
	var o order
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<16))
	if err := dec.Decode(&o); err != nil || o.CustomerID < 1 {
		return nil, errBadRequest
	}
	return &o, nil
}

// customer: tier and region, cache-aside through Redis ("tier,region").
func (s *server) customer(ctx context.Context, id int64) (int, string, error) {
	key := s.prefix + "cust:" + strconv.FormatInt(id, 10)
	c := s.rds.Get()
	defer c.Close()
	if v, err := redis.String(c.Do("GET", key)); err == nil {
		if i := strings.IndexByte(v, ','); i > 0 {
			if tier, err := strconv.Atoi(v[:i]); err == nil {
				atomic.AddInt64(&s.cacheHit, 1)
				return tier, v[i+1:], nil
			}
		}
	} else if err != redis.ErrNil {
		return 0, "", err
	}
	atomic.AddInt64(&s.cacheMiss, 1)
	var tier int
	var region string
	err := s.db.QueryRow(ctx, `SELECT tier, region FROM customers WHERE id = $1`, id).Scan(&tier, &region)
	if err == pgx.ErrNoRows {
		return 0, "", errNotFound
	} else if err != nil {
		return 0, "", err
	}
	if _, err := c.Do("SET", key, strconv.Itoa(tier)+","+region, "EX", custTTL); err != nil {
		return 0, "", err
	}
	return tier, region, nil
}

func (s *server) quote(w http.ResponseWriter, r *http.Request) {
	s.count("quote")
	o, err := readOrder(r)
	if err != nil {
		fail(w, err)
		return
	}
	tier, region, err := s.customer(r.Context(), o.CustomerID)
	if err != nil {
		fail(w, err)
		return
	}
	p, err := s.price(o, tier, region)
	if err != nil {
		fail(w, err)
		return
	}
	reply(w, 200, p)
}

func (s *server) create(w http.ResponseWriter, r *http.Request) {
	s.count("create")
	o, err := readOrder(r)
	if err != nil {
		fail(w, err)
		return
	}
	var p *priced
	var id int64
	err = s.db.BeginFunc(r.Context(), func(tx pgx.Tx) error {
		var tier int
		var region string
		err := tx.QueryRow(r.Context(), `SELECT tier, region FROM customers WHERE id = $1 FOR UPDATE`,
			o.CustomerID).Scan(&tier, &region)
		if err == pgx.ErrNoRows {
			return errNotFound
		} else if err != nil {
			return err
		}
		if p, err = s.price(o, tier, region); err != nil {
			return err
		}
		if err = tx.QueryRow(r.Context(), `INSERT INTO invoices
			(customer_id, subtotal_cents, discount_cents, tax_cents, total_cents)
			VALUES ($1, $2, $3, $4, $5) RETURNING id`, o.CustomerID, p.SubtotalCents,
			p.DiscountCents, p.TaxCents, p.TotalCents).Scan(&id); err != nil {
			return err
		}
		for _, l := range p.Lines {
			if _, err = tx.Exec(r.Context(), `INSERT INTO invoice_lines VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
				id, l.LineNo, l.SKU, l.Qty, l.UnitCents, l.AmountCents, l.DiscountCents, l.TaxCents); err != nil {
				return err
			}
		}
		_, err = tx.Exec(r.Context(), `UPDATE customers SET invoice_count = invoice_count + 1,
			balance_cents = balance_cents + $2 WHERE id = $1`, o.CustomerID, p.TotalCents)
		return err
	})
	if err != nil {
		fail(w, err)
		return
	}
	reply(w, 201, map[string]int64{"id": id, "customer_id": o.CustomerID, "subtotal_cents": p.SubtotalCents,
		"discount_cents": p.DiscountCents, "tax_cents": p.TaxCents, "total_cents": p.TotalCents})
}

func (s *server) get(w http.ResponseWriter, r *http.Request, id int64) {
	s.count("get")
	key := s.prefix + "inv:" + strconv.FormatInt(id, 10)
	c := s.rds.Get()
	defer c.Close()
	if b, err := redis.Bytes(c.Do("GET", key)); err == nil {
		atomic.AddInt64(&s.cacheHit, 1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Write(b)
		return
	} else if err != redis.ErrNil {
		fail(w, err)
		return
	}
	atomic.AddInt64(&s.cacheMiss, 1)
	var inv invoice
	err := s.db.QueryRow(r.Context(), `SELECT id, customer_id, status, currency, subtotal_cents,
		discount_cents, tax_cents, total_cents, `+createdAt+` FROM invoices WHERE id = $1`, id).Scan(
		&inv.ID, &inv.CustomerID, &inv.Status, &inv.Currency, &inv.SubtotalCents,
		&inv.DiscountCents, &inv.TaxCents, &inv.TotalCents, &inv.CreatedAt)
	if err == pgx.ErrNoRows {
		fail(w, errNotFound)
		return
	} else if err != nil {
		fail(w, err)
		return
	}
	rows, err := s.db.Query(r.Context(), `SELECT line_no, sku, qty, unit_cents, amount_cents,
		discount_cents, tax_cents FROM invoice_lines WHERE invoice_id = $1 ORDER BY line_no`, id)
	if err != nil {
		fail(w, err)
		return
	}
	inv.Lines = []line{}
	for rows.Next() {
		var l line
		if err = rows.Scan(&l.LineNo, &l.SKU, &l.Qty, &l.UnitCents, &l.AmountCents,
			&l.DiscountCents, &l.TaxCents); err != nil {
			break
		}
		inv.Lines = append(inv.Lines, l)
	}
	rows.Close()
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		fail(w, err)
		return
	}
	b, _ := json.Marshal(&inv)
	if _, err := c.Do("SET", key, b, "EX", invoiceTTL); err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b)
}

func (s *server) list(w http.ResponseWriter, r *http.Request, cid int64) {
	s.count("list")
	rows, err := s.db.Query(r.Context(), `SELECT id, status, total_cents, `+createdAt+`
		FROM invoices WHERE customer_id = $1 ORDER BY id DESC LIMIT $2`, cid, listLimit)
	if err != nil {
		fail(w, err)
		return
	}
	out := struct {
		CustomerID int64     `json:"customer_id"`
		Invoices   []summary `json:"invoices"`
	}{cid, []summary{}}
	for rows.Next() {
		var v summary
		if err = rows.Scan(&v.ID, &v.Status, &v.TotalCents, &v.CreatedAt); err != nil {
			break
		}
		out.Invoices = append(out.Invoices, v)
	}
	rows.Close()
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		fail(w, err)
		return
	}
	reply(w, 200, out)
}

// idAfter: the positive integer in path after prefix, up to the next '/'
// (rest is what follows it).
func idAfter(path, prefix string) (int64, string, bool) {
	tail := strings.TrimPrefix(path, prefix)
	rest := ""
	if i := strings.IndexByte(tail, '/'); i >= 0 {
		tail, rest = tail[:i], tail[i:]
	}
	id, err := strconv.ParseInt(tail, 10, 64)
	return id, rest, err == nil && id > 0
}

// Go's runtime/metrics, read without stopping the world.
var rtSamples = []metrics.Sample{
	{Name: "/gc/cycles/total:gc-cycles"},
	{Name: "/gc/pauses:seconds"},
	{Name: "/memory/classes/heap/objects:bytes"},
	{Name: "/memory/classes/heap/unused:bytes"},
	{Name: "/memory/classes/heap/free:bytes"},
	{Name: "/gc/heap/goal:bytes"},
	{Name: "/sched/goroutines:goroutines"},
}

var rtMu sync.Mutex

func (s *server) stats(w http.ResponseWriter, r *http.Request) {
	rtMu.Lock()
	metrics.Read(rtSamples)
	u := func(i int) uint64 {
		if rtSamples[i].Value.Kind() == metrics.KindUint64 {
			return rtSamples[i].Value.Uint64()
		}
		return 0
	}
	// total pause time from the pause histogram: each bucket's count at its
	// midpoint (the open-ended buckets at their finite edge)
	pause := 0.0
	if rtSamples[1].Value.Kind() == metrics.KindFloat64Histogram {
		h := rtSamples[1].Value.Float64Histogram()
		for i, n := range h.Counts {
			lo, hi := h.Buckets[i], h.Buckets[i+1]
			if math.IsInf(lo, -1) {
				lo = hi
			}
			if math.IsInf(hi, 1) {
				hi = lo
			}
			pause += float64(n) * (lo + hi) / 2
		}
	}
	gc := map[string]interface{}{
		"collections":          u(0),
		"pause_ms":             math.Round(pause*1e6) / 1e3,
		"heap_committed_bytes": u(2) + u(3) + u(4),
		"heap_used_bytes":      u(2),
		"heap_goal_bytes":      u(5),
		"goroutines":           u(6),
	}
	rtMu.Unlock()
	ps := s.db.Stat()
	rs := s.rds.Stats()
	calls := map[string]int64{}
	for k, v := range s.calls {
		calls[k] = atomic.LoadInt64(v)
	}
	reply(w, 200, map[string]interface{}{
		"runtime": "go " + runtime.Version(),
		"gc":      gc,
		"pool": map[string]int64{"busy": int64(ps.AcquiredConns()), "total": int64(ps.TotalConns()),
			"max": int64(ps.MaxConns()), "idle": int64(ps.IdleConns()),
			"waits": ps.EmptyAcquireCount()},
		"redis_pool": map[string]int64{"busy": int64(rs.ActiveCount - rs.IdleCount),
			"total": int64(rs.ActiveCount), "max": redisSize, "waits": rs.WaitCount},
		"cache":          map[string]int64{"hits": atomic.LoadInt64(&s.cacheHit), "misses": atomic.LoadInt64(&s.cacheMiss)},
		"endpoint_calls": calls,
		"requests":       atomic.LoadInt64(&s.requests),
	})
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if path == "/runtime-stats" && r.Method == "GET" {
		s.stats(w, r)
		return
	}
	atomic.AddInt64(&s.requests, 1)
	switch {
	case path == "/healthz" && r.Method == "GET":
		s.count("healthz")
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("ok"))
		return
	case path == "/invoices" && r.Method == "POST":
		s.create(w, r)
		return
	case path == "/quote" && r.Method == "POST":
		s.quote(w, r)
		return
	case strings.HasPrefix(path, "/invoices/") && r.Method == "GET":
		if id, rest, ok := idAfter(path, "/invoices/"); ok && rest == "" {
			s.get(w, r, id)
			return
		}
	case strings.HasPrefix(path, "/customers/") && r.Method == "GET":
		if id, rest, ok := idAfter(path, "/customers/"); ok && rest == "/invoices" {
			s.list(w, r, id)
			return
		}
	}
	reply(w, 404, map[string]string{"error": "not found"})
}

// warm opens every connection of both pools now, so the first window does
// not pay for them (the pools_warm gate checks total == max).
func (s *server) warm(ctx context.Context) error {
	conns := make([]*pgxpool.Conn, 0, poolSize)
	defer func() {
		for _, c := range conns {
			c.Release()
		}
	}()
	for i := 0; i < poolSize; i++ {
		c, err := s.db.Acquire(ctx)
		if err != nil {
			return err
		}
		conns = append(conns, c)
	}
	rc := make([]redis.Conn, 0, redisSize)
	defer func() {
		for _, c := range rc {
			c.Close()
		}
	}()
	for i := 0; i < redisSize; i++ {
		c := s.rds.Get()
		rc = append(rc, c)
		if _, err := c.Do("PING"); err != nil {
			return err
		}
	}
	return nil
}

func (s *server) load(ctx context.Context) error {
	rows, err := s.db.Query(ctx, `SELECT sku, unit_cents, tax_class FROM products`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var sku string
		var p product
		if err := rows.Scan(&sku, &p.unitCents, &p.taxClass); err != nil {
			return err
		}
		s.products[sku] = p
	}
	rows.Close()
	rows, err = s.db.Query(ctx, `SELECT region, tax_class, rate_bp FROM tax_rates`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var region string
		var class int
		var bp int64
		if err := rows.Scan(&region, &class, &bp); err != nil {
			return err
		}
		if class >= 0 && class < 3 {
			r := s.taxBP[region]
			r[class] = bp
			s.taxBP[region] = r
		}
	}
	rows.Close()
	if len(s.products) == 0 || len(s.taxBP) == 0 {
		return fmt.Errorf("no products or tax rates (was the schema loaded?)")
	}
	return nil
}

func main() {
	port := flag.Int("port", 0, "listen on 127.0.0.1:port")
	dburl := flag.String("db", "", "PostgreSQL URL")
	raddr := flag.String("redis", "", "Redis host:port")
	prefix := flag.String("cache-prefix", "go:", "Redis key prefix")
	flag.Parse()
	if *port <= 0 || *dburl == "" || *raddr == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: ledger-go --port P --db URL --redis HOST:PORT [--cache-prefix P]")
		os.Exit(2)
	}
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(*dburl)
	if err != nil {
		log.Fatalf("ledger-go: %v", err)
	}
	cfg.MaxConns, cfg.MinConns = poolSize, poolSize
	cfg.MaxConnIdleTime = time.Hour
	db, err := pgxpool.ConnectConfig(ctx, cfg)
	if err != nil {
		log.Fatalf("ledger-go: %v", err)
	}
	s := &server{
		db: db, prefix: *prefix,
		products: map[string]product{}, taxBP: map[string][3]int64{},
		calls: map[string]*int64{"create": new(int64), "get": new(int64), "list": new(int64),
			"quote": new(int64), "healthz": new(int64)},
		rds: &redis.Pool{
			MaxIdle: redisSize, MaxActive: redisSize, Wait: true,
			Dial: func() (redis.Conn, error) {
				return redis.Dial("tcp", *raddr, redis.DialConnectTimeout(2*time.Second))
			},
		},
	}
	if err := s.load(ctx); err != nil {
		log.Fatalf("ledger-go: %v", err)
	}
	if err := s.warm(ctx); err != nil {
		log.Fatalf("ledger-go: warming the pools: %v", err)
	}
	srv := &http.Server{Addr: fmt.Sprintf("127.0.0.1:%d", *port), Handler: s,
		ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	log.Printf("ledger-go: listening on %s (%s, pool %d)", srv.Addr, runtime.Version(), poolSize)
	log.Fatal(srv.ListenAndServe())
}
