-- The database's ceiling, measured by pgbench before the run (spec.yaml:
-- dependencies[db].ladder): the ledger's most frequent statement, an
-- invoice by id (50% of the mix), over the 20,000 seeded ones.
\set id random(1, 20000)
SELECT id, customer_id, status, currency, subtotal_cents, tax_cents, total_cents FROM invoices WHERE id = :id;
