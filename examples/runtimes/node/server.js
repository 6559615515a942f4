// The JSON echo API on Node's http module, exposing V8's real garbage
// collector on /runtime-stats so the harness's gc_steady gate judges a real
// collector.
//
//   node server.js --port P
//
// Routes: POST /echo parses the JSON body and returns it re-serialised (400
// when it is not JSON); GET /healthz -> "ok"; GET /runtime-stats -> JSON:
//   gc.collections        cumulative GC count (every PerformanceObserver 'gc'
//                         entry: minor/scavenge, major/mark-compact,
//                         incremental marking, weak callbacks)
//   gc.by_kind            the same count split by kind
//   gc.pause_ms           total pause time of those entries (their duration)
//   gc.heap_committed_bytes  v8.getHeapStatistics().total_heap_size
//   gc.heap_used_bytes       v8.getHeapStatistics().used_heap_size
//   pool {busy,total,max} one event loop: 1/1/1
//   endpoint_calls {echo, healthz}, requests (all but /runtime-stats)
'use strict';
const http = require('http');
const v8 = require('v8');
const { PerformanceObserver, constants } = require('perf_hooks');

let port = -1;
for (let i = 2; i + 1 < process.argv.length; i += 2)
	if (process.argv[i] === '--port') port = Number(process.argv[i + 1]);
if (!(port > 0 && port < 65536) || process.argv.length !== 4) {
	process.stderr.write('usage: node server.js --port P\n');
	process.exit(2);
}

const kinds = {
	[constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
	[constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
	[constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
	[constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};
const gc = { collections: 0, by_kind: { minor: 0, major: 0, incremental: 0, weakcb: 0 }, pause_ms: 0 };
new PerformanceObserver((list) => {
	for (const e of list.getEntries()) {
		const kind = kinds[e.detail ? e.detail.kind : e.kind] || 'other';
		gc.collections++;
		gc.by_kind[kind] = (gc.by_kind[kind] || 0) + 1;
		gc.pause_ms += e.duration;
	}
}).observe({ entryTypes: ['gc'] });

const calls = { echo: 0, healthz: 0 };
let requests = 0;

function send(res, status, type, body) {
	res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
	res.end(body);
}

const server = http.createServer((req, res) => {
	const path = req.url.split('?')[0];
	if (req.method === 'GET' && path === '/runtime-stats') {
		const h = v8.getHeapStatistics();
		const stats = {
			gc: {
				collections: gc.collections, by_kind: gc.by_kind,
				pause_ms: Math.round(gc.pause_ms * 1000) / 1000,
				heap_committed_bytes: h.total_heap_size, heap_used_bytes: h.used_heap_size,
			},
			pool: { busy: 1, total: 1, max: 1 },
			endpoint_calls: calls, requests,
			rss_bytes: process.memoryUsage.rss(),
		};
		send(res, 200, 'application/json', JSON.stringify(stats) + '\n');
		return;
	}
	requests++;
	if (req.method === 'GET' && path === '/healthz') {
		calls.healthz++;
		send(res, 200, 'text/plain', 'ok');
		return;
	}
	if (req.method === 'POST' && path === '/echo') {
		calls.echo++;
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			let v;
			try {
				v = JSON.parse(Buffer.concat(chunks).toString('utf8'));
			} catch (e) {
				send(res, 400, 'text/plain', 'bad json\n');
				return;
			}
			send(res, 200, 'application/json', JSON.stringify(v));
		});
		return;
	}
	req.resume();
	send(res, 404, 'text/plain', 'not found\n');
});
server.keepAliveTimeout = 60000;
server.listen(port, '127.0.0.1', () => {
	process.stderr.write(`node: listening on 127.0.0.1:${port} (node ${process.version})\n`);
});
server.on('error', (e) => {
	process.stderr.write(`node: 127.0.0.1:${port}: ${e.message}\n`);
	process.exit(3);
});
process.on('SIGTERM', () => process.exit(0));
