-- The ledger's tables and seed data: the dependency db's `setup`, run once
-- per run by the harness (psql, ON_ERROR_STOP) after PostgreSQL is healthy.
-- Deterministic: the same rows in every run (setseed before every random()).
--
--   customers   1,000 (tier 0..3, one of 4 regions)
--   products       50 (SKU-001..SKU-050, 3 tax classes)
--   invoices   20,000 (ids 1..20000, customer (i*7919) mod 1000 + 1,
--                       created 2026-01-01 plus i*7 minutes)
--   lines       1 to 4 per invoice
--   tax_rates   region x tax class, in basis points
-- Invoices created during the run take ids from 20001 on.
SET client_min_messages = warning;

-- The time per statement, read by the harness each window (pgstats.sql).
CREATE EXTENSION IF NOT EXISTS pg_stat_statements;

-- A resumed run (harness resume) finds the cluster its killed predecessor
-- left in the run's directory and runs setup again: start from scratch.
DROP TABLE IF EXISTS invoice_lines, invoices, tax_rates, products, customers CASCADE;

CREATE TABLE customers (
	id            bigint PRIMARY KEY,
	name          text NOT NULL,
	tier          smallint NOT NULL,        -- discount tier 0..3
	region        text NOT NULL,
	invoice_count integer NOT NULL DEFAULT 0,
	balance_cents bigint NOT NULL DEFAULT 0
);

CREATE TABLE products (
	sku        text PRIMARY KEY,
	name       text NOT NULL,
	unit_cents integer NOT NULL,
	tax_class  smallint NOT NULL            -- 0 standard, 1 reduced, 2 zero
);

CREATE TABLE tax_rates (
	region    text NOT NULL,
	tax_class smallint NOT NULL,
	rate_bp   integer NOT NULL,            -- basis points: 2000 = 20%
	PRIMARY KEY (region, tax_class)
);

CREATE TABLE invoices (
	id             bigserial PRIMARY KEY,
	customer_id    bigint NOT NULL REFERENCES customers,
	status         text NOT NULL DEFAULT 'open',
	currency       text NOT NULL DEFAULT 'EUR',
	subtotal_cents bigint NOT NULL,
	discount_cents bigint NOT NULL,
	tax_cents      bigint NOT NULL,
	total_cents    bigint NOT NULL,
	created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invoices_by_customer ON invoices (customer_id, id DESC);

CREATE TABLE invoice_lines (
	invoice_id     bigint NOT NULL REFERENCES invoices ON DELETE CASCADE,
	line_no        integer NOT NULL,
	sku            text NOT NULL REFERENCES products,
	qty            integer NOT NULL,
	unit_cents     integer NOT NULL,
	amount_cents   bigint NOT NULL,
	discount_cents bigint NOT NULL,
	tax_cents      bigint NOT NULL,
	PRIMARY KEY (invoice_id, line_no)
);

INSERT INTO tax_rates VALUES
	('north', 0, 2000), ('north', 1, 700), ('north', 2, 0),
	('south', 0, 2100), ('south', 1, 1000), ('south', 2, 0),
	('east', 0, 1900), ('east', 1, 500), ('east', 2, 0),
	('west', 0, 2200), ('west', 1, 900), ('west', 2, 0);

INSERT INTO customers (id, name, tier, region)
SELECT i, 'customer ' || i, (i * 31) % 4,
       (ARRAY['north', 'south', 'east', 'west'])[(i * 17) % 4 + 1]
FROM generate_series(1, 1000) AS i;

INSERT INTO products
SELECT 'SKU-' || lpad(i::text, 3, '0'), 'product ' || i, 150 + (i * 977) % 9850, i % 3
FROM generate_series(1, 50) AS i;

-- Lines first (in a scratch table), then the invoices' totals from them,
-- with the same integer arithmetic as the services (round half up):
-- discount = (amount * pct + 50) / 100, tax = (net * rate_bp + 5000) / 10000.
SELECT setseed(0.20261203);
CREATE TEMP TABLE seed_lines AS
SELECT inv AS invoice_id, n AS line_no,
       'SKU-' || lpad((1 + floor(random() * 50))::int::text, 3, '0') AS sku,
       1 + floor(random() * 5)::int AS qty
FROM generate_series(1, 20000) AS inv,
     LATERAL generate_series(1, 1 + (inv * 13) % 4) AS n;

CREATE TEMP TABLE seed_priced AS
SELECT l.invoice_id, l.line_no, l.sku, l.qty, p.unit_cents,
       l.qty * p.unit_cents AS amount_cents,
       (l.qty * p.unit_cents * (ARRAY[0, 2, 5, 8])[c.tier + 1] + 50) / 100 AS discount_cents,
       t.rate_bp, c.id AS customer_id
FROM seed_lines l
JOIN products p ON p.sku = l.sku
JOIN customers c ON c.id = (l.invoice_id * 7919) % 1000 + 1
JOIN tax_rates t ON t.region = c.region AND t.tax_class = p.tax_class;

INSERT INTO invoices (id, customer_id, subtotal_cents, discount_cents, tax_cents, total_cents, created_at)
SELECT invoice_id, customer_id, sum(amount_cents), sum(discount_cents),
       sum(((amount_cents - discount_cents) * rate_bp + 5000) / 10000),
       sum(amount_cents - discount_cents + ((amount_cents - discount_cents) * rate_bp + 5000) / 10000),
       timestamptz '2026-01-01 00:00:00+00' + invoice_id * interval '7 minutes'
FROM seed_priced GROUP BY invoice_id, customer_id;

INSERT INTO invoice_lines
SELECT invoice_id, line_no, sku, qty, unit_cents, amount_cents, discount_cents,
       ((amount_cents - discount_cents) * rate_bp + 5000) / 10000
FROM seed_priced;

UPDATE customers c SET invoice_count = s.n, balance_cents = s.total
FROM (SELECT customer_id, count(*) AS n, sum(total_cents) AS total
      FROM invoices GROUP BY customer_id) s
WHERE s.customer_id = c.id;

SELECT setval('invoices_id_seq', 20000);
ANALYZE;
