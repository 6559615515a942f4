// The ledger, in Node.js: the same invoicing API as ../go/main.go (contract
// in ../README.md) on the http module, PostgreSQL through node-pg's Pool and
// Redis through node-redis (one auto-pipelined connection, as node-redis is
// meant to be used), as a team would ship it.
//
//   node server.js --port P --db postgres://ledger@127.0.0.1:5432/postgres \
//        --redis 127.0.0.1:6379 [--cache-prefix node:]
//
// node-pg and node-redis are Debian's (node-pg, node-redis); NODE_PATH
// names where they are (spec.yaml).
//
// /runtime-stats: V8's collector through perf_hooks (every 'gc' entry) and
// v8.getHeapStatistics(), the pg pool (busy, total, max), the Redis client,
// the cache's hits and misses, the event loop's delay (perf_hooks'
// monitorEventLoopDelay), per-endpoint calls.
'use strict';
const http = require('http');
const v8 = require('v8');
const { PerformanceObserver, constants, monitorEventLoopDelay } = require('perf_hooks');
const pg = require('pg');
const { createClient } = require('redis');

const POOL_SIZE = 8;
const INVOICE_TTL = 60;
const CUST_TTL = 300;
const LIST_LIMIT = 10;
const MAX_LINES = 20;
const TIER_PCT = [0, 2, 5, 8];

const args = { '--port': '', '--db': '', '--redis': '', '--cache-prefix': 'node:' };
for (let i = 2; i < process.argv.length; i += 2) {
	if (!(process.argv[i] in args) || i + 1 >= process.argv.length) args.bad = true;
	else args[process.argv[i]] = process.argv[i + 1];
}
const port = Number(args['--port']);
if (args.bad || !(port > 0 && port < 65536) || !args['--db'] || !args['--redis']) {
	process.stderr.write('usage: node server.js --port P --db URL --redis HOST:PORT [--cache-prefix P]\n');
	process.exit(2);
}
const prefix = args['--cache-prefix'];

// bigint columns as numbers: every amount here is far below 2^53
pg.types.setTypeParser(20, (v) => parseInt(v, 10));
const pool = new pg.Pool({ connectionString: args['--db'], max: POOL_SIZE, idleTimeoutMillis: 0 });
pool.on('error', (e) => process.stderr.write(`ledger-node: idle client: ${e.message}\n`));
const [rhost, rport] = args['--redis'].split(':');
const rds = createClient({ socket: { host: rhost, port: Number(rport) } });
rds.on('error', (e) => process.stderr.write(`ledger-node: redis: ${e.message}\n`));

const gc = { collections: 0, pause_ms: 0 };
new PerformanceObserver((list) => {
	for (const e of list.getEntries()) {
		gc.collections++;
		gc.pause_ms += e.duration;
	}
}).observe({ entryTypes: ['gc'] });
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();

const calls = { create: 0, get: 0, list: 0, quote: 0, healthz: 0 };
let requests = 0;
const cache = { hits: 0, misses: 0 };
const products = new Map();   // sku -> { unit_cents, tax_class }
const taxBP = new Map();      // region -> [bp by tax class]

class HttpError extends Error {
	constructor(status, msg) { super(msg); this.status = status; }
}
const badRequest = () => new HttpError(400, 'bad request');
const notFound = () => new HttpError(404, 'not found');

const CREATED_AT = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

function send(res, status, body, type = 'application/json') {
	res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
	res.end(body);
}

function readBody(req) {
	return new Promise((resolve, reject) => {
		const chunks = [];
		let n = 0;
		req.on('data', (c) => {
			n += c.length;
			if (n > 65536) reject(badRequest());
			else chunks.push(c);
		});
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

async function readOrder(req) {
	let o;
	try {
		o = JSON.parse(await readBody(req));
	} catch (e) {
		throw badRequest();
	}
	if (!o || !Number.isInteger(o.customer_id) || o.customer_id < 1 || !Array.isArray(o.lines))
		throw badRequest();
	return o;
}

// The pricing rules of ../go/main.go's price(), in the same integer cents.
function price(o, tier, region) {
	const rates = taxBP.get(region);
	if (o.lines.length === 0 || o.lines.length > MAX_LINES || !(tier >= 0 && tier <= 3) || !rates)
		throw badRequest();
	const p = { customer_id: o.customer_id, tier, region, lines: [],
		subtotal_cents: 0, discount_cents: 0, tax_cents: 0, total_cents: 0 };
	o.lines.forEach((l, i) => {
		const pr = l && typeof l.sku === 'string' ? products.get(l.sku) : undefined;
		if (!pr || !Number.isInteger(l.qty) || l.qty < 1 || l.qty > 1000) throw badRequest();
		const amount = l.qty * pr.unit_cents;
		const disc = Math.floor((amount * TIER_PCT[tier] + 50) / 100);
		const tax = Math.floor(((amount - disc) * rates[pr.tax_class] + 5000) / 10000);
		p.lines.push({ line_no: i + 1, sku: l.sku, qty: l.qty, unit_cents: pr.unit_cents,
			amount_cents: amount, discount_cents: disc, tax_cents: tax });
		p.subtotal_cents += amount;
		p.discount_cents += disc;
		p.tax_cents += tax;
	});
	p.total_cents = p.subtotal_cents - p.discount_cents + p.tax_cents;
	return p;
}

// tier and region, cache-aside through Redis ("tier,region")
async function customer(id) {
	const key = `${prefix}cust:${id}`;
	const v = await rds.get(key);
	if (v !== null) {
		const i = v.indexOf(',');
		if (i > 0) {
			cache.hits++;
			return [Number(v.slice(0, i)), v.slice(i + 1)];
		}
	}
	cache.misses++;
	const r = await pool.query('SELECT tier, region FROM customers WHERE id = $1', [id]);
	if (r.rows.length === 0) throw notFound();
	const { tier, region } = r.rows[0];
	await rds.set(key, `${tier},${region}`, { EX: CUST_TTL });
	return [tier, region];
}

async function quote(req, res) {
	calls.quote++;
	const o = await readOrder(req);
	const [tier, region] = await customer(o.customer_id);
	send(res, 200, JSON.stringify(price(o, tier, region)));
}

async function create(req, res) {
	calls.create++;
	const o = await readOrder(req);
	const c = await pool.connect();
	let p, id;
	try {
		await c.query('BEGIN');
		const cr = await c.query('SELECT tier, region FROM customers WHERE id = $1 FOR UPDATE', [o.customer_id]);
		if (cr.rows.length === 0) throw notFound();
		p = price(o, cr.rows[0].tier, cr.rows[0].region);
		const ir = await c.query(`INSERT INTO invoices
			(customer_id, subtotal_cents, discount_cents, tax_cents, total_cents)
			VALUES ($1, $2, $3, $4, $5) RETURNING id`,
			[o.customer_id, p.subtotal_cents, p.discount_cents, p.tax_cents, p.total_cents]);
		id = ir.rows[0].id;
		for (const l of p.lines)
			await c.query('INSERT INTO invoice_lines VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
				[id, l.line_no, l.sku, l.qty, l.unit_cents, l.amount_cents, l.discount_cents, l.tax_cents]);
		await c.query(`UPDATE customers SET invoice_count = invoice_count + 1,
			balance_cents = balance_cents + $2 WHERE id = $1`, [o.customer_id, p.total_cents]);
		await c.query('COMMIT');
	} catch (e) {
		await c.query('ROLLBACK').catch(() => {});
		throw e;
	} finally {
		c.release();
	}
	send(res, 201, JSON.stringify({ customer_id: o.customer_id, discount_cents: p.discount_cents, id,
		subtotal_cents: p.subtotal_cents, tax_cents: p.tax_cents, total_cents: p.total_cents }));
}

async function get(res, id) {
	calls.get++;
	const key = `${prefix}inv:${id}`;
	const hit = await rds.get(key);
	if (hit !== null) {
		cache.hits++;
		send(res, 200, hit);
		return;
	}
	cache.misses++;
	const ir = await pool.query(`SELECT id, customer_id, status, currency, subtotal_cents, discount_cents,
		tax_cents, total_cents, ${CREATED_AT} AS created_at FROM invoices WHERE id = $1`, [id]);
	if (ir.rows.length === 0) throw notFound();
	const lr = await pool.query(`SELECT line_no, sku, qty, unit_cents, amount_cents, discount_cents,
		tax_cents FROM invoice_lines WHERE invoice_id = $1 ORDER BY line_no`, [id]);
	const body = JSON.stringify({ ...ir.rows[0], lines: lr.rows });
	await rds.set(key, body, { EX: INVOICE_TTL });
	send(res, 200, body);
}

async function list(res, cid) {
	calls.list++;
	const r = await pool.query(`SELECT id, status, total_cents, ${CREATED_AT} AS created_at
		FROM invoices WHERE customer_id = $1 ORDER BY id DESC LIMIT $2`, [cid, LIST_LIMIT]);
	send(res, 200, JSON.stringify({ customer_id: cid, invoices: r.rows }));
}

function stats(res) {
	const h = v8.getHeapStatistics();
	send(res, 200, JSON.stringify({
		runtime: `node ${process.version}`,
		gc: {
			collections: gc.collections, pause_ms: Math.round(gc.pause_ms * 1000) / 1000,
			heap_committed_bytes: h.total_heap_size, heap_used_bytes: h.used_heap_size,
		},
		pool: { busy: pool.totalCount - pool.idleCount, total: pool.totalCount, max: POOL_SIZE,
			idle: pool.idleCount, waits: pool.waitingCount },
		redis_pool: { busy: 0, total: rds.isReady ? 1 : 0, max: 1 },
		cache,
		event_loop: { delay_p99_ms: loopDelay.percentile(99) / 1e6, delay_max_ms: loopDelay.max / 1e6 },
		endpoint_calls: calls, requests,
		rss_bytes: process.memoryUsage.rss(),
	}));
}

// the positive integer id in /prefix/ID[rest]
function idAfter(path, pre, rest) {
	if (!path.startsWith(pre) || !path.endsWith(rest)) return 0;
	const s = path.slice(pre.length, path.length - rest.length);
	return /^[0-9]{1,15}$/.test(s) && Number(s) > 0 ? Number(s) : 0;
}

async function route(req, res) {
	const path = req.url.split('?')[0];
	if (req.method === 'GET' && path === '/runtime-stats') return stats(res);
	requests++;
	let id;
	if (req.method === 'GET' && path === '/healthz') {
		calls.healthz++;
		return send(res, 200, 'ok', 'text/plain');
	}
	if (req.method === 'POST' && path === '/invoices') return create(req, res);
	if (req.method === 'POST' && path === '/quote') return quote(req, res);
	if (req.method === 'GET' && (id = idAfter(path, '/invoices/', '')) && !path.slice(10).includes('/'))
		return get(res, id);
	if (req.method === 'GET' && (id = idAfter(path, '/customers/', '/invoices')))
		return list(res, id);
	req.resume();
	send(res, 404, JSON.stringify({ error: 'not found' }));
}

const server = http.createServer((req, res) => {
	route(req, res).catch((e) => {
		if (!(e instanceof HttpError)) process.stderr.write(`ledger-node: ${e.stack || e}\n`);
		const status = e instanceof HttpError ? e.status : 500;
		if (!res.headersSent)
			send(res, status, JSON.stringify({ error: status === 500 ? 'internal' : e.message }));
	});
});
server.keepAliveTimeout = 120000;
server.on('error', (e) => {
	process.stderr.write(`ledger-node: 127.0.0.1:${port}: ${e.message}\n`);
	process.exit(3);
});

async function main() {
	await rds.connect();
	for (const r of (await pool.query('SELECT sku, unit_cents, tax_class FROM products')).rows)
		products.set(r.sku, { unit_cents: r.unit_cents, tax_class: r.tax_class });
	for (const r of (await pool.query('SELECT region, tax_class, rate_bp FROM tax_rates')).rows) {
		if (!taxBP.has(r.region)) taxBP.set(r.region, [0, 0, 0]);
		taxBP.get(r.region)[r.tax_class] = r.rate_bp;
	}
	if (products.size === 0 || taxBP.size === 0) throw new Error('no products or tax rates (was the schema loaded?)');
	// every connection opened now (the pools_warm gate checks total == max)
	const clients = await Promise.all(Array.from({ length: POOL_SIZE }, () => pool.connect()));
	clients.forEach((c) => c.release());
	server.listen(port, '127.0.0.1', () => {
		process.stderr.write(`ledger-node: listening on 127.0.0.1:${port} (node ${process.version}, pool ${POOL_SIZE})\n`);
	});
}
main().catch((e) => {
	process.stderr.write(`ledger-node: ${e.stack || e}\n`);
	process.exit(1);
});
process.on('SIGTERM', () => process.exit(0));
